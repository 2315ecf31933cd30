"""`save`/`restore`: identical logprobs and an identical next step in a freshly loaded engine."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agentjet_engine.engine import Engine
from agentjet_engine.errors import EngineError
from test_train import make_samples

HYPER = {"lr": 3e-3, "microBatchTokens": 200}


def samples_with(engine: Engine, corpus: list, advantage: float) -> list[dict[str, Any]]:
    return [{**s, "advantages": advantage} for s in make_samples(engine, corpus)]


def scores(engine: Engine, samples: list[dict[str, Any]]) -> list[list[float]]:
    return engine.logprobs({"sequences": [{"tokenIds": s["tokenIds"]} for s in samples]})["logprobs"]


def test_save_restore_round_trip(make_engine: Callable[..., Engine], corpus: list, tmp_path: Path) -> None:
    a = make_engine()
    samples = samples_with(a, corpus, 1.0)
    for _ in range(2):
        a.train_step({"samples": samples, "hyper": HYPER})
    saved = a.save({"path": str(tmp_path / "ckpt")})
    assert saved["weightVersion"] == 2 and saved["bytes"] > 0
    assert {p.name for p in (tmp_path / "ckpt").iterdir()} == {"dcp", "rng-0.pt", "engine.json"}
    assert (tmp_path / "ckpt" / "dcp" / ".metadata").is_file()  # torch.distributed.checkpoint
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp folders left behind
    # Unseeded sampling draws its seed from the engine RNG, which the checkpoint captures. (Both engines
    # share this process's global RNG, so a's draw happens before b is loaded and restored.)
    request = {"requests": [{"promptIds": samples[0]["tokenIds"][:20], "maxTokens": 8, "temperature": 1.0}]}
    generated_a = a.generate(request)

    b = make_engine()
    assert scores(b, samples) != scores(a, samples)
    info = b.restore({"path": str(tmp_path / "ckpt")})
    assert info["weightVersion"] == 2
    assert scores(b, samples) == scores(a, samples)
    assert b.generate(request) == generated_a

    # The next step is identical: same weights, same AdamW moments.
    stats_a = a.train_step({"samples": samples, "hyper": HYPER})
    stats_b = b.train_step({"samples": samples, "hyper": HYPER})
    for key in ("loss", "pgLoss", "clipFraction", "approxKl", "entropy", "gradNorm", "weightVersion"):
        assert stats_a[key] == stats_b[key], key
    assert scores(a, samples) == scores(b, samples)


def test_save_replaces_an_existing_checkpoint(engine: Engine, corpus: list, tmp_path: Path) -> None:
    path = str(tmp_path / "ckpt")
    engine.save({"path": path})
    engine.train_step({"samples": samples_with(engine, corpus, 1.0), "hyper": HYPER})
    assert engine.save({"path": path})["weightVersion"] == 1
    assert engine.restore({"path": path})["weightVersion"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt"]


def test_checkpoints_are_private(engine: Engine, tmp_path: Path) -> None:
    """The run folder is private (README): a checkpoint's folders are 0700 and its files 0600, whatever the umask."""
    old = os.umask(0o022)
    try:
        path = tmp_path / "checkpoints" / "step-000001"
        engine.save({"path": str(path)})
    finally:
        os.umask(old)
    entries = [path.parent, path, *path.rglob("*")]
    assert any(p.is_file() for p in entries) and any(p.is_dir() for p in path.rglob("*"))
    for p in entries:
        assert stat.S_IMODE(p.stat().st_mode) == (0o700 if p.is_dir() else 0o600), p


def test_restore_errors(make_engine: Callable[..., Engine], tmp_path: Path) -> None:
    engine = make_engine()
    with pytest.raises(EngineError) as info:
        engine.restore({"path": str(tmp_path / "missing")})
    assert info.value.type == "invalid_params" and info.value.code == "not_a_checkpoint"
    lora = make_engine(lora={"r": 4, "alpha": 8})
    lora.save({"path": str(tmp_path / "lora")})
    with pytest.raises(EngineError) as info:
        engine.restore({"path": str(tmp_path / "lora")})
    assert (info.value.type, info.value.code) == ("state", "checkpoint_mismatch")
    with pytest.raises(EngineError) as info:
        Engine(threads=1).restore({"path": str(tmp_path / "lora")})
    assert info.value.code == "not_loaded"
