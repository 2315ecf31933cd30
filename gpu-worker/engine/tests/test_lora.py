"""LoRA via peft: only adapter weights train, KL uses the adapter-free base, checkpoints hold the adapter."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from agentjet_engine.engine import Engine
from agentjet_engine.errors import EngineError
from test_train import make_samples


def test_lora_trains_only_adapter_parameters(make_engine: Callable[..., Engine], corpus: list, tmp_path: Path) -> None:
    engine = make_engine(lora={"r": 4, "alpha": 8, "dropout": 0.0})
    info = engine.info()
    assert info["lora"] and 0 < info["trainableParams"] < info["params"]
    named = dict(engine.loaded.model.named_parameters())
    assert all("lora_" in n for n, p in named.items() if p.requires_grad)
    before = {n: p.detach().clone() for n, p in named.items()}
    samples = [{**s, "advantages": 1.0} for s in make_samples(engine, corpus)]
    first = engine.logprobs({"sequences": [{"tokenIds": samples[0]["tokenIds"]}]})["logprobs"]
    for _ in range(2):
        stats = engine.train_step({"samples": samples, "hyper": {"lr": 1e-2, "klCoef": 0.1}})
    assert stats["klLoss"] > 0  # adapter on vs off differ after training
    changed = {n for n, p in named.items() if not torch.equal(p, before[n])}
    assert changed and all("lora_" in n for n in changed)
    assert any("lora_A" in n for n in changed) and any("lora_B" in n for n in changed)
    assert engine.logprobs({"sequences": [{"tokenIds": samples[0]["tokenIds"]}]})["logprobs"] != first
    assert engine.trainer.reference is None  # KL used disable_adapter(), not a copy
    prompt = max((s["tokenIds"] for s in samples), key=len)[:30]
    assert len(prompt) == 30
    out = engine.generate(
        {
            "requests": [
                {"promptIds": prompt, "maxTokens": 8, "temperature": 0.9, "seed": 5},
                {"promptIds": prompt[:12], "maxTokens": 8, "temperature": 0},
            ]
        }
    )["results"]
    again = engine.logprobs(
        {"sequences": [{"tokenIds": prompt + out[0]["tokenIds"]}, {"tokenIds": prompt[:12] + out[1]["tokenIds"]}]}
    )["logprobs"]
    assert max(abs(a - b) for a, b in zip(again[0][30:], out[0]["logprobs"])) < 1e-4
    assert max(abs(a - b) for a, b in zip(again[1][12:], out[1]["logprobs"])) < 1e-4

    saved = engine.save({"path": str(tmp_path / "adapter")})
    other = make_engine(lora={"r": 4, "alpha": 8, "dropout": 0.0})
    other.restore({"path": str(tmp_path / "adapter")})
    assert saved["bytes"] < 4 * info["params"]  # adapter + its optimizer state, not the base weights
    seq = {"sequences": [{"tokenIds": samples[0]["tokenIds"]}]}
    assert other.logprobs(seq) == engine.logprobs(seq)


def test_lora_target_modules_and_validation(make_engine: Callable[..., Engine]) -> None:
    engine = make_engine(lora={"r": 2, "alpha": 4, "targetModules": ["q_proj", "v_proj"]})
    trainable = [n for n, p in engine.loaded.model.named_parameters() if p.requires_grad]
    assert trainable and all(("q_proj" in n or "v_proj" in n) for n in trainable)
    for lora, field in [
        ({"alpha": 4}, "lora.r"),
        ({"r": 0, "alpha": 4}, "lora.r"),
        ({"r": 2, "alpha": 4, "targetModules": []}, "lora.targetModules"),
        ({"r": 2, "alpha": 4, "targetModules": ["nope"]}, "lora.targetModules"),
    ]:
        with pytest.raises(EngineError) as info:
            make_engine(lora=lora)
        assert info.value.type == "invalid_params" and info.value.message.startswith(field + ":")
