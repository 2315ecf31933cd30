"""The memory-lean train step changes no number: chunked logprobs vs full logits and activation
checkpointing on vs off (within 1e-5), the segment tree attention vs the dense reference mask
(within 1e-4) — loss, gradient and stats — and the segment plan skips the empty blocks."""

from __future__ import annotations

from typing import Any

import torch
from agentjet_engine.engine import Engine
from agentjet_engine.training import Hyper, accumulate_gradients
from agentjet_engine.tree_attention import segments
from agentjet_engine.trees import TokenSeq, make_input
from test_tree import merged, rel, to_samples  # noqa: F401  (merged is a fixture)

STATS = ("pg", "kl", "clipped", "approx_kl", "entropy")


def run(engine: Engine, raw: list[dict[str, Any]], **hyper: Any) -> tuple[dict[str, float], torch.Tensor]:
    trainer = engine.trainer
    h = Hyper(lr=0.0, clip_low=0.2, clip_high=0.28, kl_coef=0.1, micro_batch_tokens=96, **hyper)
    engine.loaded.model.zero_grad(set_to_none=True)
    from agentjet_engine.loading import set_activation_checkpointing

    set_activation_checkpointing(engine.loaded.model, bool(h.activation_checkpointing))
    try:
        sums = accumulate_gradients(trainer.scorer, to_samples(raw), h, trainer._context(h))
    finally:
        set_activation_checkpointing(engine.loaded.model, False)
    grad = torch.cat([p.grad.flatten() for _, p in engine.loaded.trainable_parameters()])
    engine.loaded.model.zero_grad(set_to_none=True)
    return sums, grad


def close(a: tuple[dict[str, float], torch.Tensor], b: tuple[dict[str, float], torch.Tensor], tol: float) -> None:
    (sa, ga), (sb, gb) = a, b
    assert ga.norm() > 0
    assert rel(ga, gb) < tol, rel(ga, gb)
    for key in STATS:
        assert abs(sa[key] - sb[key]) <= tol * max(1.0, abs(sa[key])), (key, sa[key], sb[key])


def test_chunked_logprobs_equal_full_logits(engine: Engine, merged: dict[str, list[dict[str, Any]]]) -> None:
    samples = merged["tree"] + merged["linear"]
    close(
        run(engine, samples, chunked_logprobs=False, tree_attention="dense"),
        run(engine, samples, chunked_logprobs=True, tree_attention="dense"),
        1e-5,
    )


def test_activation_checkpointing_changes_nothing(engine: Engine, merged: dict[str, list[dict[str, Any]]]) -> None:
    samples = merged["tree"] + merged["linear"]
    close(
        run(engine, samples, activation_checkpointing=False), run(engine, samples, activation_checkpointing=True), 1e-5
    )


def test_segment_tree_attention_equals_the_dense_mask(engine: Engine, merged: dict[str, list[dict[str, Any]]]) -> None:
    assert engine.trainer.segments_ok and engine.info()["treeAttention"] == "segments"
    for samples in (merged["tree"], merged["tree"] + merged["none"]):
        close(run(engine, samples, tree_attention="dense"), run(engine, samples, tree_attention="segments"), 1e-4)
    stats = engine.train_step({"samples": merged["tree"], "hyper": {"lr": 1e-3, "dryRun": True}})
    assert stats["treeAttention"] == "segments" and stats["chunkedLogprobs"] is True
    dense = engine.train_step(
        {"samples": merged["tree"], "hyper": {"lr": 1e-3, "dryRun": True, "treeAttention": "dense"}}
    )
    assert dense["treeAttention"] == "dense" and abs(dense["loss"] - stats["loss"]) < 1e-4 * max(1, abs(stats["loss"]))


def test_the_segment_plan_skips_empty_blocks(merged: dict[str, list[dict[str, Any]]]) -> None:
    parents = [-1, 0, 1, 1, 0, 4]  # 0 → 1 → {2, 3}; 0 → 4 → 5
    segs = segments(parents, 6)
    assert [(s.start, s.end) for s in segs] == [(0, 3), (3, 4), (4, 6)]
    assert segs[0].keys is None  # the root segment: plain causal
    assert segs[1].keys.tolist() == [0, 1, 3]  # token 3 sees 0, 1 (its ancestors) and itself
    assert segs[2].keys.tolist() == [0, 4, 5]
    tree = merged["tree"][0]
    inp = make_input([TokenSeq(tree["tokenIds"], tree["parents"], tree["positions"])], pad_id=0)
    n = len(tree["tokenIds"])
    assert inp.plan is not None and inp.mask is None
    print(f"tree of {n} tokens: {inp.plan.pairs()} query-key pairs vs {n * n} dense")
    assert inp.plan.pairs() < 0.6 * n * n
