"""The benchmarks' one random-weights builder: seeded and reproducible, an fp32 output head under a lower
dtype, and a model folder the engine loads (the tokenizer's vocabulary, or a larger one when asked)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from agentjet_bench.random_model import build, main, qwen2_config, write_folder
from agentjet_engine.engine import Engine

TINY = dict(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1, intermediate_size=64)


def test_build_is_seeded_and_keeps_the_head_in_fp32_under_bf16() -> None:
    config = qwen2_config({**TINY, "vocab_size": 64}, 128, tied=False)
    a, b = build(config, seed=3), build(config, seed=3)
    assert all(torch.equal(x, y) for x, y in zip(a.parameters(), b.parameters()))
    half = build(config, dtype=torch.bfloat16, seed=3)
    assert next(half.parameters()).dtype == torch.bfloat16
    logits = half(torch.tensor([[1, 2, 3]])).logits
    assert logits.dtype == torch.float32


def test_a_folder_loads_in_the_engine(tmp_path: Path) -> None:
    folder, params = write_folder(tmp_path / "m", TINY, context=256, seed=1)
    assert params > 0 and (folder / "config.json").is_file() and (folder / "tokenizer.json").is_file()
    engine = Engine(threads=2)
    engine.load({"path": str(folder), "device": "cpu", "threads": 2})
    assert engine.info()["contextLength"] == 256
    wide, _ = write_folder(tmp_path / "wide", TINY, vocab=4096, context=256)
    assert json.loads((wide / "config.json").read_text())["vocab_size"] == 4096


def test_the_command_needs_a_size_or_every_dimension(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit, match="give --size"):
        main(["--out", str(tmp_path / "x"), "--hidden", "32"])
    assert main(["--out", str(tmp_path / "s"), "--size", "small", "--context", "128"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["size"] == "small"
