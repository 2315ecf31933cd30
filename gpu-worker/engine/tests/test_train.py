"""`train_step`: direction of updates, loss-mask isolation, hand-computed loss, micro-batching, KL term."""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch
from agentjet_engine.engine import Engine
from agentjet_engine.errors import EngineError
from agentjet_engine.pretrain import encode
from agentjet_engine.training import Hyper, Sample, accumulate_gradients


def make_samples(engine: Engine, corpus: list[dict[str, Any]], n: int = 3) -> list[dict[str, Any]]:
    """Rendered transcripts with the loss on assistant-generated tokens and on-policy rollout logprobs."""
    examples, _ = encode(engine.loaded.tokenizer, corpus[:n], engine.loaded.context_length)
    samples: list[dict[str, Any]] = [{"tokenIds": e.ids, "lossMask": e.mask} for e in examples]
    lps = engine.logprobs({"sequences": [{"tokenIds": s["tokenIds"]} for s in samples]})["logprobs"]
    for s, lp in zip(samples, lps):
        s["rolloutLogprobs"] = lp
    return samples


def masked_mean_logprob(engine: Engine, samples: list[dict[str, Any]]) -> float:
    lps = engine.logprobs({"sequences": [{"tokenIds": s["tokenIds"]} for s in samples]})["logprobs"]
    values = [v for s, lp in zip(samples, lps) for v, m in zip(lp, s["lossMask"]) if m]
    return sum(values) / len(values)


@pytest.mark.parametrize("advantage, direction", [(1.0, 1), (-1.0, -1)])
def test_advantage_sign_moves_logprobs(engine: Engine, corpus: list, advantage: float, direction: int) -> None:
    samples = [{**s, "advantages": advantage} for s in make_samples(engine, corpus)]
    before = masked_mean_logprob(engine, samples)
    for step in range(4):
        stats = engine.train_step({"samples": samples, "hyper": {"lr": 3e-3}})
        assert stats["weightVersion"] == step + 1
    after = masked_mean_logprob(engine, samples)
    assert (after - before) * direction > 0.05, (before, after)
    assert (
        engine.generate({"requests": [{"promptIds": samples[0]["tokenIds"][:5], "maxTokens": 1, "temperature": 0}]})[
            "weightVersion"
        ]
        == 4
    )


def to_samples(raw: list[dict[str, Any]]) -> list[Sample]:
    out = []
    for s in raw:
        adv = s["advantages"]
        adv = [float(adv)] * len(s["tokenIds"]) if isinstance(adv, (int, float)) else adv
        out.append(Sample(s["tokenIds"], s["lossMask"], adv, s["rolloutLogprobs"]))
    return out


def grads_for(engine: Engine, samples: list[Sample], hyper: Hyper) -> tuple[dict[str, float], list[torch.Tensor]]:
    m, trainer = engine.loaded, engine.trainer
    m.model.zero_grad(set_to_none=True)
    sums = accumulate_gradients(trainer.scorer, samples, hyper, trainer._context(hyper))
    grads = [p.grad.clone() for _, p in m.trainable_parameters()]
    m.model.zero_grad(set_to_none=True)
    return sums, grads


def test_positions_outside_the_mask_do_not_matter(engine: Engine, corpus: list) -> None:
    raw = make_samples(engine, corpus)
    base = []
    for k, s in enumerate(raw):
        n = len(s["tokenIds"])
        adv = [0.5 - 0.3 * k + 0.01 * i for i in range(n)]
        rollout = [lp - 0.1 * ((i % 3) - 1) for i, lp in enumerate(s["rolloutLogprobs"])]  # stale: ratios ≠ 1
        base.append({**s, "advantages": adv, "rolloutLogprobs": rollout})
    garbage = []
    for s in base:
        adv = [a if m else float("nan") for a, m in zip(s["advantages"], s["lossMask"])]
        rollout = [
            r if m else (1e30 if i % 2 else float("-inf"))
            for i, (r, m) in enumerate(zip(s["rolloutLogprobs"], s["lossMask"]))
        ]
        garbage.append({**s, "advantages": adv, "rolloutLogprobs": rollout})
    hyper = Hyper(lr=1e-3)
    sums_a, grads_a = grads_for(engine, to_samples(base), hyper)
    sums_b, grads_b = grads_for(engine, to_samples(garbage), hyper)
    assert sums_a == sums_b
    assert all(torch.equal(a, b) for a, b in zip(grads_a, grads_b))
    assert any(g.abs().sum() > 0 for g in grads_a)


def test_loss_equals_hand_computation(engine: Engine, corpus: list) -> None:
    raw = make_samples(engine, corpus)
    current = engine.logprobs({"sequences": [{"tokenIds": s["tokenIds"]} for s in raw]})["logprobs"]
    samples, expected_terms, clipped, kls = [], [], 0, []
    for k, (s, lp) in enumerate(zip(raw, current)):
        rollout = [v + 0.3 * math.sin(i + k) for i, v in enumerate(lp)]  # ratios spread across the clip range
        adv = [1.5 if k % 2 == 0 else -0.7] * len(lp)
        samples.append({**s, "advantages": adv, "rolloutLogprobs": rollout})
        for i, m in enumerate(s["lossMask"]):
            if not m:
                continue
            ratio = math.exp(lp[i] - rollout[i])
            low, high = 1 - 0.2, 1 + 0.28
            unclipped, clip = ratio * adv[i], min(max(ratio, low), high) * adv[i]
            expected_terms.append(-min(unclipped, clip))
            clipped += clip < unclipped
            kls.append(ratio - 1 - math.log(ratio))
    stats = engine.train_step({"samples": samples, "hyper": {"lr": 1e-3, "clipHigh": 0.28}})
    n = len(expected_terms)
    assert stats["trainedTokens"] == n and stats["tokens"] == sum(len(s["tokenIds"]) for s in samples)
    assert math.isclose(stats["loss"], sum(expected_terms) / n, rel_tol=1e-5, abs_tol=1e-6)
    assert stats["pgLoss"] == stats["loss"] and stats["klLoss"] == 0.0
    assert math.isclose(stats["clipFraction"], clipped / n, abs_tol=1e-9) and 0 < stats["clipFraction"] < 1
    assert math.isclose(stats["approxKl"], sum(kls) / n, rel_tol=1e-4)
    assert stats["entropy"] > 0 and stats["gradNorm"] > 0 and stats["seconds"] > 0


def test_micro_batching_accumulates_the_same_gradient(engine: Engine, corpus: list) -> None:
    samples = to_samples([{**s, "advantages": 1.0 - i} for i, s in enumerate(make_samples(engine, corpus, 4))])
    sums_one, grads_one = grads_for(engine, samples, Hyper(lr=0.0, micro_batch_tokens=100_000))
    sums_many, grads_many = grads_for(engine, samples, Hyper(lr=0.0, micro_batch_tokens=1))
    assert sums_one["micro_batches"] == 1 and sums_many["micro_batches"] == 4
    for a, b in zip(grads_one, grads_many):
        assert torch.allclose(a, b, atol=1e-6, rtol=1e-4)
    assert math.isclose(sums_one["pg"], sums_many["pg"], rel_tol=1e-5)


def test_grad_norm_is_clipped_and_reported(engine: Engine, corpus: list) -> None:
    samples = [{**s, "advantages": 100.0} for s in make_samples(engine, corpus)]
    stats = engine.train_step({"samples": samples, "hyper": {"lr": 0.0, "maxGradNorm": 0.5}})
    assert stats["gradNorm"] > 0.5  # reported before clipping


def test_kl_to_initial_weights(engine: Engine, corpus: list) -> None:
    samples = [{**s, "advantages": 1.0} for s in make_samples(engine, corpus)]
    assert engine.trainer.reference is None
    first = engine.train_step({"samples": samples, "hyper": {"lr": 3e-3}})
    assert engine.trainer.reference is None  # no KL requested: no reference copy is made
    second = engine.train_step({"samples": samples, "hyper": {"lr": 3e-3, "klCoef": 0.5}})
    assert engine.trainer.reference is not None
    assert first["klLoss"] == 0.0 and second["klLoss"] > 0.0
    assert math.isclose(second["loss"], second["pgLoss"] + 0.5 * second["klLoss"], rel_tol=1e-6)


def test_kl_is_zero_at_load_time_weights(engine: Engine, corpus: list) -> None:
    samples = [{**s, "advantages": 1.0} for s in make_samples(engine, corpus)]
    stats = engine.train_step({"samples": samples, "hyper": {"lr": 1e-3, "klCoef": 1.0}})
    assert abs(stats["klLoss"]) < 1e-6


@pytest.mark.parametrize(
    "mutate, field, error_type",
    [
        (lambda s: s.update(lossMask=[1] + s["lossMask"][1:]), "samples[0].lossMask[0]", "invalid_params"),
        (lambda s: s.update(lossMask=s["lossMask"][:-1]), "samples[0].lossMask", "invalid_params"),
        (lambda s: s.update(advantages=[1.0]), "samples[0].advantages", "invalid_params"),
        (lambda s: s.update(advantages="high"), "samples[0].advantages", "invalid_params"),
        (lambda s: s.update(rolloutLogprobs=None), "samples[0].rolloutLogprobs", "invalid_params"),
        (lambda s: s.update(lossMask=[0] * len(s["tokenIds"])), "samples", "invalid_params"),
        (
            lambda s: s.update(
                tokenIds=s["tokenIds"] * 50,
                lossMask=s["lossMask"] * 50,
                advantages=1.0,
                rolloutLogprobs=s["rolloutLogprobs"] * 50,
            ),
            "samples[0].tokenIds",
            "context_overflow",
        ),
    ],
)
def test_train_step_invalid_params(engine: Engine, corpus: list, mutate: Any, field: str, error_type: str) -> None:
    sample = {**make_samples(engine, corpus, 1)[0], "advantages": 1.0}
    mutate(sample)
    with pytest.raises(EngineError) as info:
        engine.train_step({"samples": [sample], "hyper": {"lr": 1e-3}})
    assert info.value.type == error_type and info.value.message.startswith(field + ":")
    assert engine.weight_version == 0


def test_hyper_is_validated(engine: Engine, corpus: list) -> None:
    sample = {**make_samples(engine, corpus, 1)[0], "advantages": 1.0}
    for hyper, field in [
        ({}, "hyper.lr"),
        ({"lr": 1e-3, "clipLow": 2}, "hyper.clipLow"),
        ({"lr": 1e-3, "microBatchTokens": 0}, "hyper.microBatchTokens"),
    ]:
        with pytest.raises(EngineError) as info:
            engine.train_step({"samples": [sample], "hyper": hyper})
        assert info.value.message.startswith(field + ":")
    with pytest.raises(EngineError, match="^hyper:"):
        engine.train_step({"samples": [sample]})
