"""The engine's ranks: a `torch.distributed` process group started the torchrun way, and the work
rank 0 hands to the follower ranks.

The worker starts an N-rank engine as `python -m torch.distributed.run --standalone
--nproc-per-node N -m agentjet_engine` (torchrun sets RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and
MASTER_PORT, restarts nothing — a failed rank ends the job — and its agent tears the other ranks
down when one dies). Rank 0 speaks the frame protocol; ranks 1…N−1 run `follow`, a loop that
receives each collective request (load, train_step, save, restore, close) that rank 0's `Engine`
broadcasts from inside those methods, and runs the same method. Only those methods are collective;
generation, scoring, rendering and decoding run on rank 0 alone.

gloo carries CPU tensors and NCCL CUDA tensors (`cpu:gloo,cuda:nccl` where CUDA exists). A rank that
dies makes the next collective fail on the others; rank 0 then answers the request with a
`rank_failed` error and exits, so the worker restarts the engine from its last checkpoint (as after
any engine crash).
"""

from __future__ import annotations

import datetime
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as dist

from .errors import EngineError

log = logging.getLogger("agentjet_engine")

COLLECTIVE_METHODS = ("load", "train_step", "save", "restore", "sync_gather", "close")
# A collective waiting longer than this for a rank fails (the default of 30 min would hide a hang).
TIMEOUT_S = int(os.environ.get("AGENTJET_ENGINE_RANK_TIMEOUT_S", "600"))


@dataclass
class RankGroup:
    """This process's place among the engine's ranks (a single process is rank 0 of 1)."""

    rank: int = 0
    world_size: int = 1
    local_rank: int = 0

    @property
    def distributed(self) -> bool:
        return self.world_size > 1

    @property
    def leader(self) -> bool:
        return self.rank == 0

    def broadcast(self, payload: Any) -> Any:
        """Rank 0's `payload` on every rank (pickled)."""
        if not self.distributed:
            return payload
        box = [payload if self.leader else None]
        dist.broadcast_object_list(box, src=0, device=torch.device("cpu"))
        return box[0]

    def all_gather(self, value: Any) -> list[Any]:
        if not self.distributed:
            return [value]
        out: list[Any] = [None] * self.world_size
        dist.all_gather_object(out, value)  # gloo for CPU objects (see start_from_env)
        return out

    def sum_floats(self, values: dict[str, float]) -> dict[str, float]:
        """Element-wise sums over the ranks of a dict of floats (same keys everywhere), in float64."""
        if not self.distributed:
            return values
        keys = sorted(values)
        t = torch.tensor([values[k] for k in keys], dtype=torch.float64)
        dist.all_reduce(t)
        return dict(zip(keys, t.tolist()))

    def barrier(self) -> None:
        if self.distributed:
            dist.barrier()

    def leave(self) -> None:
        """Every rank, at the end: wait until all ranks are here, then tear the group down.

        Without the barrier, a rank that destroys its gloo pairs while a peer is still reading the
        last broadcast aborts that peer ("terminate called without an active exception").
        """
        if self.distributed:
            dist.barrier()
            dist.destroy_process_group()


def start_from_env() -> RankGroup:
    """Join the process group torchrun described in the environment; a lone process is rank 0 of 1."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world <= 1:
        return RankGroup()
    rank, local = int(os.environ["RANK"]), int(os.environ.get("LOCAL_RANK", "0"))
    # (parent_watch.py, installed by __main__, ends each rank when torchrun's agent — its parent — dies)
    # CPU tensors (the work broadcast, stat sums, CPU ranks' FSDP) over gloo, CUDA tensors over NCCL.
    backend = "cpu:gloo,cuda:nccl" if torch.cuda.is_available() else "gloo"
    if torch.cuda.is_available() and local < torch.cuda.device_count():
        torch.cuda.set_device(local)
    dist.init_process_group(backend, timeout=datetime.timedelta(seconds=TIMEOUT_S))
    if rank == 0:
        _defer_sigterm()
    log.info("rank %d of %d (local %d, pid %d) joined over %s", rank, world, local, os.getpid(), backend)
    return RankGroup(rank, world, local)


def _defer_sigterm() -> None:
    """Rank 0: when torchrun's agent stops the job after another rank died, finish answering first.

    The agent sends SIGTERM as soon as it notices the failed rank, which races rank 0's `rank_failed`
    answer to the request that was waiting on that rank; exiting a moment later lets the answer out.
    """

    def handler(signum: int, _frame: Any) -> None:
        log.info("rank 0: SIGTERM from the launcher; exiting after the current answer")
        exit_soon(code=128 + signum, delay_s=1.0)

    signal.signal(signal.SIGTERM, handler)


def rank_failed(method: str, exc: BaseException, group: RankGroup) -> EngineError:
    return EngineError(
        "internal",
        "rank_failed",
        f"{method} failed across the engine's {group.world_size} ranks ({type(exc).__name__}: {exc}); "
        "a rank died or stopped answering, so the engine exits and the worker restarts it from "
        "the last checkpoint",
    )


def exit_rank(code: int) -> None:
    """End a rank of a multi-rank engine once its group is torn down, without the interpreter's own
    teardown: that teardown races torch's C++ threads and now and then aborts the process (SIGABRT,
    "terminate called without an active exception"), which torchrun reports as a failed job."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(code)


def exit_soon(code: int = 3, delay_s: float = 0.5) -> None:
    """Leave the process shortly (after the error response is written): its ranks cannot continue."""
    timer = threading.Timer(delay_s, os._exit, args=(code,))
    timer.daemon = True
    timer.start()


def follow(group: RankGroup, run: Callable[[str, dict[str, Any]], Any]) -> int:
    """A follower rank's loop: run every collective request rank 0 broadcasts until `close`.

    An `EngineError` is raised identically on every rank (the requests were validated on rank 0 and
    the steps are symmetric), so it is logged and the loop goes on; anything else ends the process
    with a non-zero code, which makes torchrun stop the job.
    """
    while True:
        try:
            method, params = group.broadcast(None)
        except Exception as exc:  # rank 0 is gone
            log.error("rank %d: lost rank 0 (%s); exiting", group.rank, exc)
            return 1
        if method == "close":
            group.leave()
            return 0
        try:
            run(method, params)
        except EngineError as exc:
            log.info("rank %d: %s failed as on every rank: %s", group.rank, method, exc.message)
        except Exception:
            log.exception("rank %d: %s failed", group.rank, method)
            return 1
