"""The GPU benchmark: refuses to run without CUDA, and its sections run end to end on tiny shapes."""

from __future__ import annotations

import json
from typing import Any

import pytest
import torch
from agentjet_bench import gpu as bench_gpu


def test_without_cuda_it_says_so_and_exits_non_zero(capsys: pytest.CaptureFixture[str]) -> None:
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    assert bench_gpu.main([]) == 2
    out = capsys.readouterr()
    assert "no CUDA" in out.err and json.loads(out.out.strip().splitlines()[-1]) == {"bench": "gpu", "error": "no_cuda"}


def test_sections_run_on_tiny_shapes(capsys: pytest.CaptureFixture[str]) -> None:
    calls: list[str] = []

    def extra(ctx: Any) -> dict[str, Any]:  # how another module adds a section: one register() line
        calls.append(ctx.device.type)
        return {"ok": True}

    bench_gpu.register("extra", extra)
    try:
        assert bench_gpu.main(["--smoke", "--sections", "serving,train,extra"]) == 0
    finally:
        del bench_gpu.SECTIONS["extra"]
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    serving = summary["serving"]
    reuse, scratch = serving["smoke_c4_reuse"], serving["smoke_c4_noreuse"]
    assert reuse["prompt_tokens"] == scratch["prompt_tokens"] == scratch["prefilled_tokens"]
    assert reuse["prefilled_tokens"] < scratch["prefilled_tokens"] / 2
    assert summary["train"]["smoke_lora_512"]["tokens"] == 512
    assert summary["extra"] == {"ok": True} and calls


def test_sync_section_pushes_the_weights_to_a_replica_process(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_gpu.main(["--smoke", "--sections", "sync"]) == 0
    rows = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["sync"]["rows"]
    assert [r["mode"] for r in rows] == ["full", "lora"]
    full, lora = rows
    assert full["bytes"] > lora["bytes"] > 0  # LoRA sends only the adapter
    assert all(len(r["pullMs"]) == 3 for r in rows)
