"""Weight sync from the trainer to its rollout replicas over `torch.distributed` (DESIGN §8, issue #21).

The trainer engine hosts a `TCPStore` (`open_store`: the rendezvous endpoint, `--rdzv-endpoint`; a replica
on another host reaches it over TCP). Each replica forms a two-member process group with the trainer
(`SyncLink`: gloo on CPU, NCCL on CUDA), under a key prefix of its own — one group per replica and per
(re)start, so a replica that dies breaks only its own link and its restart makes a fresh one. Pairs,
rather than one group of 1 + R, are what lets a dead replica leave the others untouched: a collective
over a group with a dead member fails on every member.

`push` sends, from the trainer's serving copy, every trainable tensor (LoRA: the adapter alone) in the
serving dtype (bf16 on GPU: half the bytes of the fp32 master weights), packed into buckets of at most
`bucket_bytes`; a header goes first (weight version, tensor count, element count, dtype), so a replica
whose model does not match refuses instead of loading garbage. `pull` receives into staging buffers and
returns them; the caller copies them into its model at a step boundary (`apply`). Every wait is bounded
by the link's timeout, and a failure raises `EngineError("sync_failed")`.
"""

from __future__ import annotations

import datetime
import logging
import time
from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as dist
from torch._utils import _flatten_dense_tensors, _unflatten_dense_tensors

from .errors import EngineError

log = logging.getLogger("agentjet_engine")

DTYPES = {0: torch.float32, 1: torch.bfloat16, 2: torch.float16}
DTYPE_CODES = {v: k for k, v in DTYPES.items()}
DEFAULT_BUCKET_BYTES = 32 << 20


def sync_failed(what: str, exc: BaseException | str) -> EngineError:
    why = exc if isinstance(exc, str) else f"{type(exc).__name__}: {exc}"
    return EngineError("internal", "sync_failed", f"weight sync {what} failed ({why})")


def open_store(host: str, port: int, timeout_s: float) -> dist.TCPStore:
    """The trainer's rendezvous store (port 0: any free port; `store.port` says which)."""
    return dist.TCPStore(host, port, None, True, timeout=datetime.timedelta(seconds=timeout_s), wait_for_workers=False)


def connect_store(host: str, port: int, timeout_s: float) -> dist.TCPStore:
    """A replica's client of the trainer's store (another host: the trainer's --rdzv-endpoint)."""
    return dist.TCPStore(host, port, None, False, timeout=datetime.timedelta(seconds=timeout_s))


def trainable(model: torch.nn.Module) -> list[tuple[str, torch.Tensor]]:
    """What a sync carries: every trainable tensor, in a fixed order (LoRA: the adapter alone)."""
    return [(n, p) for n, p in model.named_parameters() if p.requires_grad]


def buckets(tensors: list[torch.Tensor], bucket_bytes: int) -> list[list[int]]:
    """Indices of `tensors` packed in order into buckets of at most `bucket_bytes` (a larger tensor alone)."""
    out: list[list[int]] = []
    size = 0
    for i, t in enumerate(tensors):
        b = t.numel() * t.element_size()
        if out and size + b <= bucket_bytes:
            out[-1].append(i)
            size += b
        else:
            out.append([i])
            size = b
    return out


@dataclass
class SyncLink:
    """One trainer ↔ replica process group (trainer rank 0, replica rank 1)."""

    prefix: str
    rank: int
    group: Any
    device: torch.device
    timeout: datetime.timedelta

    @staticmethod
    def join(
        store: dist.Store, prefix: str, rank: int, device: torch.device, timeout_s: float, backend: str = "auto"
    ) -> SyncLink:
        """`backend`: auto (NCCL between CUDA devices, else gloo), or gloo / nccl. Two processes on the same
        GPU need gloo (NCCL refuses a duplicate device); gloo stages CUDA tensors through the host."""
        timeout = datetime.timedelta(seconds=timeout_s)
        pstore = dist.PrefixStore(prefix, store)
        try:
            if backend == "nccl" or (backend == "auto" and device.type == "cuda"):
                opts = dist.ProcessGroupNCCL.Options()
                opts._timeout = timeout
                group: Any = dist.ProcessGroupNCCL(pstore, rank, 2, opts)
            else:
                group = dist.ProcessGroupGloo(pstore, rank, 2, timeout)
        except Exception as exc:
            raise sync_failed(f"join of {prefix!r}", exc) from exc
        log.info("weight sync link %s joined as rank %d on %s", prefix, rank, device)
        return SyncLink(prefix, rank, group, device, timeout)

    def _broadcast(self, tensor: torch.Tensor) -> None:
        opts = dist.BroadcastOptions()
        opts.rootRank = 0
        work = self.group.broadcast([tensor], opts)
        if not work.wait(self.timeout):
            raise TimeoutError(f"no answer within {self.timeout.total_seconds():.0f}s")

    def push(
        self, named: list[tuple[str, torch.Tensor]], version: int, wire: torch.dtype, bucket_bytes: int
    ) -> dict[str, Any]:
        """Trainer side: header, then the trainable tensors (`trainable(model)`) in `wire` dtype, bucketed."""
        started = time.perf_counter()
        numel = sum(p.numel() for _, p in named)
        header = torch.tensor([version, len(named), numel, DTYPE_CODES[wire]], dtype=torch.int64)
        sent = 0
        try:
            self._broadcast(header.to(self.device))
            with torch.no_grad():
                tensors = [p.detach().to(self.device, wire) for _, p in named]
                plan = buckets(tensors, bucket_bytes)
                for idx in plan:
                    flat = _flatten_dense_tensors([tensors[i] for i in idx])
                    self._broadcast(flat)
                    sent += flat.numel() * flat.element_size()
        except Exception as exc:
            raise sync_failed(f"push on {self.prefix!r}", exc) from exc
        ms = (time.perf_counter() - started) * 1000
        return {"bytes": sent, "buckets": len(plan), "tensors": len(named), "ms": ms}

    def pull(self, model: torch.nn.Module, bucket_bytes: int) -> tuple[int, list[torch.Tensor], dict[str, Any]]:
        """Replica side: (weight version, staged tensors in `model`'s trainable order, figures)."""
        started = time.perf_counter()
        named = trainable(model)
        header = torch.zeros(4, dtype=torch.int64, device=self.device)
        try:
            self._broadcast(header)
            version, count, numel, code = (int(x) for x in header.cpu().tolist())
            mine = sum(p.numel() for _, p in named)
            if count != len(named) or numel != mine or code not in DTYPES:
                raise EngineError(
                    "state",
                    "sync_mismatch",
                    f"the trainer sends {count} tensors / {numel} elements, this replica's model has "
                    f"{len(named)} / {mine}: it was loaded differently (model, LoRA settings)",
                )
            wire = DTYPES[code]
            staged = [torch.empty(p.shape, dtype=wire, device=self.device) for _, p in named]
            for idx in buckets(staged, bucket_bytes):
                flat = _flatten_dense_tensors([staged[i] for i in idx])
                self._broadcast(flat)
                for i, t in zip(idx, _unflatten_dense_tensors(flat, [staged[i] for i in idx])):
                    staged[i] = t
        except EngineError:
            raise
        except Exception as exc:
            raise sync_failed(f"pull on {self.prefix!r}", exc) from exc
        ms = (time.perf_counter() - started) * 1000
        return version, staged, {"ms": ms, "tensors": len(named), "bytes": numel * wire.itemsize}


def apply(model: torch.nn.Module, staged: list[torch.Tensor]) -> None:
    """Copies staged tensors into the model's trainable tensors (casting to its dtype)."""
    with torch.no_grad():
        for (_, p), t in zip(trainable(model), staged):
            p.copy_(t)
