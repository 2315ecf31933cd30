"""The GPU benchmark's memory section on this CPU (tiny shape): its rows measure the real train step,
rows the estimator says cannot fit are skipped with the reason, and without CUDA the benchmark exits 2."""

from __future__ import annotations

import torch
from agentjet_bench import gpu as bench_gpu
from agentjet_bench.gpu_memory import measure_rows
from agentjet_engine.distributed import RankGroup


def test_memory_rows_on_cpu(monkeypatch) -> None:
    lines: list[str] = []
    rows = measure_rows("smoke", "lora", torch.device("cpu"), RankGroup(), (32, 64), lines.append)
    assert [r["tokens"] for r in rows] == [32, 64] and not any(r["skipped"] for r in rows)
    assert all(r["peakGiB"] is not None and r["estimateGiB"] > 0 and r["seconds"] > 0 for r in rows)
    assert len(lines) == 2
    monkeypatch.setattr("agentjet_bench.gpu_memory._free_bytes", lambda device: 2**20)
    skipped = measure_rows("smoke", "full", torch.device("cpu"), RankGroup(), (32,), lines.append)
    assert skipped[0]["skipped"] and "free" in skipped[0]["why"]


def test_without_cuda_the_benchmark_says_so_and_exits_2(capsys) -> None:
    if torch.cuda.is_available():
        return
    assert bench_gpu.main(["--sections", "memory"]) == 2
    assert "no CUDA" in capsys.readouterr().err
