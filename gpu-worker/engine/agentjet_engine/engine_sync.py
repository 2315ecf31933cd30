"""The engine's weight-sync methods (protocol frames `sync_open`, `sync_join`, `sync_push`, `sync_pull`,
`sync_leave`) over `weight_sync.py`, and the rollout-replica role.

A *trainer* engine (the one that runs `train_step`) opens the rendezvous store and pushes; a *replica*
engine (loaded with `role: "replica"`: inference only, no optimizer, weights in the serving dtype) joins
and pulls. The worker drives both sides of each link at once (the push and the pull block until the other
side has taken part, within the link's timeout).

A pull receives in a background thread while the replica keeps decoding; the weights are then applied
between two decode steps (`inflight: "swap"`: running generations continue on the new weights, their
tokens' versions recorded) or once the running generations have finished (`"finish"`: admission waits
meanwhile, as for a `train_step`). See docs/training-at-scale.md#asynchronous-updates.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import torch

from . import params as P
from .errors import EngineError, not_loaded
from .weight_sync import (
    DEFAULT_BUCKET_BYTES,
    DTYPE_CODES,
    SyncLink,
    apply,
    connect_store,
    open_store,
    sync_failed,
    trainable,
)

log = logging.getLogger("agentjet_engine")


def _timeout(params: dict[str, Any]) -> float:
    return P.get_float(params, "timeoutS", default=120.0, lo=1.0, hi=3600.0)


def _bucket(params: dict[str, Any]) -> int:
    return P.get_int(params, "bucketBytes", default=DEFAULT_BUCKET_BYTES, lo=1 << 16, hi=1 << 34)


class SyncMethods:
    """Mixed into `Engine`: links to the trainer or replicas, and the pending weight swap of a replica."""

    loaded: Any
    weight_version: int
    serving: Any
    role: str
    trainer: Any
    _collective: Callable[[str, dict[str, Any]], Any]

    def _init_sync(self) -> None:
        self.store: Any = None
        self.links: dict[str, SyncLink] = {}
        self.pull_busy = False

    def _sync_device(self) -> torch.device:
        if self.loaded is None:
            raise not_loaded()
        return self.loaded.device

    def sync_open(self, params: dict[str, Any]) -> dict[str, Any]:
        host = P.get_str(params, "host", default="127.0.0.1")
        port = P.get_int(params, "port", default=0, lo=0, hi=65535)
        if self.store is None:
            try:
                self.store = open_store(host, port, _timeout(params))
            except Exception as exc:
                raise sync_failed(f"rendezvous store on {host}:{port}", exc) from exc
        return {"host": host, "port": int(self.store.port)}

    def sync_join(self, params: dict[str, Any]) -> dict[str, Any]:
        """Join (or re-join) one link: rank 0 the trainer (its own store), rank 1 a replica (host:port)."""
        link = P.get_str(params, "link")
        rank = P.get_int(params, "rank", lo=0, hi=1)
        timeout = _timeout(params)
        device = self._sync_device()
        if rank == 0:
            if self.store is None:
                raise EngineError("state", "no_store", "sync_join as rank 0 needs sync_open first")
            store = self.store
        else:
            host = P.get_str(params, "host")
            port = P.get_int(params, "port", lo=1, hi=65535)
            try:
                store = connect_store(host, port, timeout)
            except Exception as exc:
                raise sync_failed(f"rendezvous with {host}:{port}", exc) from exc
        backend = P.get_str(params, "backend", default="auto", choices=("auto", "gloo", "nccl"))
        self.links.pop(link, None)
        self.links[link] = SyncLink.join(store, link, rank, device, timeout, backend)
        return {"link": link, "rank": rank}

    def sync_leave(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"left": self.links.pop(P.get_str(params, "link"), None) is not None}

    def sync_push(self, params: dict[str, Any]) -> dict[str, Any]:
        """Trainer: the current weights to each named link in turn; a failed link is dropped and listed."""
        m = self.loaded
        if m is None:
            raise not_loaded()
        names = P.get_list(params, "links", min_len=1)
        bucket = _bucket(params)
        started = time.perf_counter()
        trainer = getattr(self, "trainer", None)
        if trainer is not None and not trainer.serves:  # FSDP without an inference copy: gather from the shards
            named = self._collective("sync_gather", {"dtype": DTYPE_CODES[m.compute_dtype]})
        else:
            named = trainable(m.model)
        pushed: list[dict[str, Any]] = []
        failed: list[dict[str, str]] = []
        for name in names:
            link = self.links.get(name) if isinstance(name, str) else None
            if link is None:
                failed.append({"link": str(name), "message": "no such link (join it first)"})
                continue
            try:
                pushed.append({"link": name, **link.push(named, self.weight_version, m.compute_dtype, bucket)})
            except EngineError as exc:
                log.warning("%s; dropping the link", exc.message)
                self.links.pop(name, None)
                failed.append({"link": name, "message": exc.message})
        ms = (time.perf_counter() - started) * 1000
        return {"weightVersion": self.weight_version, "ms": ms, "pushed": pushed, "failed": failed}

    def start_pull(self, params: dict[str, Any], done: Callable[[Callable[[], Any]], None]) -> None:
        """Replica: receive on a background thread; `done(finish)` hands back the step that applies it."""
        if self.role != "replica":
            raise EngineError("state", "not_replica", "sync_pull is for rollout replicas (load with role: replica)")
        m = self.loaded
        if m is None:
            raise not_loaded()
        link = self.links.get(P.get_str(params, "link"))
        if link is None:
            raise EngineError("state", "no_link", "sync_pull: no such link (sync_join first)")
        if self.pull_busy:
            raise EngineError("state", "busy", "sync_pull: a pull is already running")
        bucket = _bucket(params)
        self.pull_busy = True

        def receive() -> None:
            try:
                version, staged, figures = link.pull(m.model, bucket)
            except Exception as exc:
                error = exc if isinstance(exc, EngineError) else sync_failed("pull", exc)
                self.links.pop(link.prefix, None)
                done(lambda: self._pull_failed(error))
                return
            done(lambda: self._apply_pulled(version, staged, figures))

        threading.Thread(target=receive, name="sync-pull", daemon=True).start()

    def _pull_failed(self, error: EngineError) -> Any:
        self.pull_busy = False
        raise error

    def _apply_pulled(self, version: int, staged: list[torch.Tensor], figures: dict[str, Any]) -> dict[str, Any]:
        """Between two decode steps: new weights in, prefix cache out, running rows marked."""
        self.pull_busy = False
        started = time.perf_counter()
        apply(self.loaded.model, staged)
        running = self.serving.mark_version(version)
        self.weight_version = version
        self.serving.weights_changed()
        apply_ms = (time.perf_counter() - started) * 1000
        return {"weightVersion": version, **figures, "applyMs": apply_ms, "running": running}
