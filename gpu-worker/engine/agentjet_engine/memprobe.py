"""Measured memory: the peak of a block of work and the bytes a rank's parameters and optimizer hold.

On CUDA the peak is `torch.cuda.max_memory_allocated` after a reset (tensor memory). On Linux CPU
it is the process's peak resident set (VmHWM), reset before the block by writing 5 to
/proc/self/clear_refs, so it counts everything the process touched (large tensors are mmapped and
returned to the system when freed, so the figure follows the tensors); elsewhere it is None.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

import torch


def _status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_cpu_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
            f.write("5")
        return True
    except OSError:
        return False


class PeakMemory:
    """`with PeakMemory(device) as m: …` then `m.peak` (bytes or None) and `m.before` (bytes at entry)."""

    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.before: int | None = None
        self.peak: int | None = None
        self._cpu_ok = False

    def __enter__(self) -> PeakMemory:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
            torch.cuda.reset_peak_memory_stats(self.device)
            self.before = torch.cuda.memory_allocated(self.device)
        else:
            self._cpu_ok = _reset_cpu_peak()
            rss = _status_kib("VmRSS")
            self.before = None if rss is None else rss * 1024
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
            self.peak = torch.cuda.max_memory_allocated(self.device)
        elif self._cpu_ok:
            hwm = _status_kib("VmHWM")
            self.peak = None if hwm is None else hwm * 1024


def _local(t: Any) -> torch.Tensor:
    return t.to_local() if hasattr(t, "to_local") else t


def tensor_bytes(tensors: Any) -> int:
    return sum(_local(t).numel() * _local(t).element_size() for t in tensors if isinstance(t, torch.Tensor))


def state_bytes(module: torch.nn.Module, optimizer: torch.optim.Optimizer) -> dict[str, int]:
    """This rank's bytes of parameters (its shards under FSDP), of trainable ones, and of optimizer states."""
    params = list(module.parameters())
    optim = [v for state in optimizer.state.values() for v in state.values()]
    return {
        "paramBytes": tensor_bytes(params),
        "trainableParamBytes": tensor_bytes(p for p in params if p.requires_grad),
        "optimizerBytes": tensor_bytes(optim),
    }
