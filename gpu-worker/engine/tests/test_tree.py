"""Tree-packed samples: logprobs equal the unpacked sequences', and the PPO loss and gradient on
linear-merged and tree-packed samples equal those on the unmerged calls (token-level merging)."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
import torch
from agentjet_engine.engine import Engine
from agentjet_engine.errors import EngineError
from agentjet_engine.training import Hyper, Sample, accumulate_gradients, loss_weight
from agentjet_engine.trees import TokenSeq, make_input, subtree_ends
from merging import Call, linear_chains, linear_samples, tree_pack, unmerged, unpack

ADVANTAGE = {"e1": 1.0, "e2": -0.6, "e3": 0.8}


def _tokens(rng: random.Random, n: int) -> list[int]:
    return [rng.randrange(3, 480) for _ in range(n)]


def make_calls(engine: Engine) -> list[Call]:
    """Three episodes. e1, e2 share a task prompt (one group); e2 retries a call (same prompt and
    sampled output: a trained token occurring twice) and rewrites a tool result (a branch); e3 has
    its own prompt. Rollout logprobs are the current ones, perturbed so ratios hit both clip sides."""
    rng = random.Random(3)
    shared, other = _tokens(rng, 24), _tokens(rng, 20)
    o = {k: _tokens(rng, 6 + k % 3) for k in range(8)}
    t = {k: _tokens(rng, 5) for k in range(8)}
    plans: list[tuple[str, list[int], list[int]]] = [
        ("e1", shared, o[0]),
        ("e1", shared + o[0] + t[0], o[1]),
        ("e1", shared + o[0] + t[0] + o[1] + t[1], o[2]),
        ("e2", shared, o[3]),
        ("e2", shared + o[3] + t[3], o[4]),
        ("e2", shared + o[3] + t[3], o[4]),  # retry: same prompt, same sample
        ("e2", shared + o[3] + t[4], o[5]),  # rewritten tool result: a branch
        ("e3", other, o[6]),
        ("e3", other + o[6] + t[6], o[7]),
    ]
    seqs = [{"tokenIds": p + out} for _, p, out in plans]
    current = engine.logprobs({"sequences": seqs})["logprobs"]
    calls: list[Call] = []
    for k, ((episode, prompt, out), lp) in enumerate(zip(plans, current)):
        if k == 5:  # the retry sampled the same tokens with the same logprobs
            calls.append(Call(episode, prompt, out, list(calls[4].logprobs)))
            continue
        rollout = [v + 0.3 * math.sin(3 * k + i) for i, v in enumerate(lp[len(prompt) :])]
        calls.append(Call(episode, prompt, out, rollout))
    return calls


def to_samples(raw: list[dict[str, Any]]) -> list[Sample]:
    out = []
    for s in raw:
        adv = s["advantages"]
        adv = [float(adv)] * len(s["tokenIds"]) if isinstance(adv, (int, float)) else adv
        out.append(
            Sample(
                s["tokenIds"],
                s["lossMask"],
                adv,
                s["rolloutLogprobs"],
                s.get("parents"),
                s.get("positions"),
                s.get("weights"),
            )
        )
    return out


def loss_and_grad(engine: Engine, raw: list[dict[str, Any]], hyper: Hyper) -> tuple[float, torch.Tensor]:
    m, trainer = engine.loaded, engine.trainer
    samples = to_samples(raw)
    m.model.zero_grad(set_to_none=True)
    sums = accumulate_gradients(trainer.scorer, samples, hyper, trainer._context(hyper))
    grad = torch.cat([p.grad.flatten() for _, p in m.trainable_parameters()])
    m.model.zero_grad(set_to_none=True)
    total = loss_weight(samples)
    return (sums["pg"] + hyper.kl_coef * sums["kl"]) / total, grad


def rel(a: float | torch.Tensor, b: float | torch.Tensor) -> float:
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return float((a - b).norm() / a.norm())
    return abs(float(a) - float(b)) / abs(float(a))


@pytest.fixture
def merged(engine: Engine) -> dict[str, list[dict[str, Any]]]:
    # Move the policy off its load-time weights first, so the KL term and its gradient are not 0.
    calls = make_calls(engine)
    engine.train_step({"samples": unmerged(calls[:3], ADVANTAGE), "hyper": {"lr": 5e-3}})
    chains = linear_chains(calls)
    group = [c for c in chains if c.episode in ("e1", "e2")]
    rest = [c for c in chains if c.episode not in ("e1", "e2")]
    return {
        "none": unmerged(calls, ADVANTAGE),
        "linear": linear_samples(chains, ADVANTAGE),
        # the group packed into one tree, e3 left linear: a step mixing both kinds
        "tree": tree_pack(group, ADVANTAGE) + linear_samples(rest, ADVANTAGE),
    }


def test_merged_layouts_are_what_the_test_means(merged: dict[str, list[dict[str, Any]]]) -> None:
    none, linear, tree = merged["none"], merged["linear"], merged["tree"]
    assert len(none) == 9 and len(linear) == 5 and len(tree) == 2
    packed = tree[0]
    assert max(packed["weights"]) == 2  # the retried output is one node standing for two occurrences
    assert sum(packed["weights"]) == sum(sum(s["lossMask"]) for s in none[:7])
    assert len(unpack(packed)) == 3  # e1; e2 with its retry folded in (weight 2); the rewrite
    n_none, n_linear, n_tree = (sum(len(s["tokenIds"]) for s in x) for x in (none, linear, tree))
    assert n_tree < n_linear < n_none


@pytest.mark.parametrize("micro_batch_tokens", [100_000, 48])
def test_loss_and_gradient_are_exact_under_merging(
    engine: Engine, merged: dict[str, list[dict[str, Any]]], micro_batch_tokens: int
) -> None:
    hyper = Hyper(lr=0.0, clip_low=0.2, clip_high=0.28, kl_coef=0.1, micro_batch_tokens=micro_batch_tokens)
    loss_none, grad_none = loss_and_grad(engine, merged["none"], hyper)
    loss_linear, grad_linear = loss_and_grad(engine, merged["linear"], hyper)
    loss_tree, grad_tree = loss_and_grad(engine, merged["tree"], hyper)
    diffs = {
        "loss_linear": rel(loss_none, loss_linear),
        "loss_tree": rel(loss_none, loss_tree),
        "grad_linear": rel(grad_none, grad_linear),
        "grad_tree": rel(grad_none, grad_tree),
    }
    print(
        f"max relative diffs (micro-batch {micro_batch_tokens} tokens): "
        + ", ".join(f"{k} {v:.2e}" for k, v in diffs.items())
    )
    assert grad_none.norm() > 0 and loss_none != 0
    assert all(v < 1e-4 for v in diffs.values()), diffs


def test_train_step_stats_agree_and_dry_run_changes_nothing(
    engine: Engine, merged: dict[str, list[dict[str, Any]]]
) -> None:
    version = engine.weight_version
    before = [p.detach().clone() for _, p in engine.loaded.trainable_parameters()]
    hyper = {"lr": 1e-2, "clipHigh": 0.28, "dryRun": True}
    stats = {mode: engine.train_step({"samples": merged[mode], "hyper": hyper}) for mode in ("none", "linear", "tree")}
    assert engine.weight_version == version
    assert all(torch.equal(a, p) for a, (_, p) in zip(before, engine.loaded.trainable_parameters()))
    for mode in ("linear", "tree"):
        for key in ("loss", "pgLoss", "clipFraction", "approxKl", "entropy", "gradNorm", "lossWeight"):
            assert math.isclose(stats[mode][key], stats["none"][key], rel_tol=1e-4, abs_tol=1e-7), (mode, key)
        assert stats[mode]["dryRun"] is True
    assert stats["tree"]["tokens"] < stats["linear"]["tokens"] < stats["none"]["tokens"]
    assert stats["tree"]["trainedTokens"] < stats["tree"]["lossWeight"]  # a weighted (shared) token
    assert 0 < stats["none"]["clipFraction"] < 1
    real = engine.train_step({"samples": merged["tree"], "hyper": {"lr": 1e-2}})
    assert real["weightVersion"] == version + 1 and real["dryRun"] is False


def test_tree_logprobs_equal_the_unpacked_paths(engine: Engine, merged: dict[str, list[dict[str, Any]]]) -> None:
    tree = merged["tree"][0]
    paths = unpack(tree)
    packed = engine.logprobs(
        {
            "sequences": [
                {"tokenIds": tree["tokenIds"], "parents": tree["parents"], "positions": tree["positions"]},
                {"tokenIds": tree["tokenIds"][:5]},  # a linear row in the same batch
            ]
        }
    )["logprobs"]
    per_path = engine.logprobs({"sequences": [{"tokenIds": [tree["tokenIds"][i] for i in p]} for p in paths]})
    worst = 0.0
    for path, lps in zip(paths, per_path["logprobs"]):
        for depth, i in enumerate(path):
            worst = max(worst, abs(packed[0][i] - lps[depth]))
    print(f"tree vs per-path logprobs: max abs diff {worst:.2e}")
    assert worst < 1e-5
    assert packed[0][0] == 0.0
    alone = engine.logprobs({"sequences": [{"tokenIds": tree["tokenIds"][:5]}]})["logprobs"][0]
    assert max(abs(a - b) for a, b in zip(alone, packed[1])) < 1e-5
    # positions are optional (derived from parents)
    derived = engine.logprobs({"sequences": [{"tokenIds": tree["tokenIds"], "parents": tree["parents"]}]})
    assert max(abs(a - b) for a, b in zip(derived["logprobs"][0], packed[0])) < 1e-6


def test_tree_mask_blocks_everything_but_ancestors() -> None:
    parents = [-1, 0, 1, 1, 0, 4]  # 0 → 1 → {2, 3}; 0 → 4 → 5
    assert subtree_ends(parents) == [6, 4, 3, 4, 6, 6]
    inp = make_input(
        [TokenSeq([5, 6, 7, 8, 9, 10], parents, [0, 1, 2, 2, 1, 2]), TokenSeq([5, 6, 7])],
        pad_id=0,
        tree_attention="dense",
    )
    allowed = inp.attention_mask[:, 0] == 0
    assert inp.attention_mask.shape == (2, 1, 6, 6)
    assert allowed[0].nonzero().tolist() == [
        [0, 0],
        [1, 0],
        [1, 1],
        [2, 0],
        [2, 1],
        [2, 2],
        [3, 0],
        [3, 1],
        [3, 3],
        [4, 0],
        [4, 4],
        [5, 0],
        [5, 4],
        [5, 5],
    ]
    # the linear row is causal over its 3 tokens; each padding query sees only itself
    assert allowed[1].nonzero().tolist() == [[0, 0], [1, 0], [1, 1], [2, 0], [2, 1], [2, 2], [3, 3], [4, 4], [5, 5]]
    assert inp.position_ids.tolist() == [[0, 1, 2, 2, 1, 2], [0, 1, 2, 0, 0, 0]]
    assert inp.parents is not None and inp.parents.tolist() == [parents, [-1, 0, 1, -1, -1, -1]]


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda s: s.update(parents=[0] + s["parents"][1:]), "samples[0].parents[0]:"),
        (lambda s: s.update(parents=s["parents"][:-1]), "samples[0].parents:"),
        (lambda s: s.update(parents=[-1, 0, 1, 0, 2] + s["parents"][5:]), "samples[0].parents[4]:"),  # not pre-order
        (lambda s: s.update(parents=[-1, 1] + s["parents"][2:]), "samples[0].parents[1]:"),
        (lambda s: s.update(positions=[0] * len(s["tokenIds"])), "samples[0].positions[1]:"),
        (lambda s: s.update(weights=[-1.0] * len(s["tokenIds"])), "samples[0].weights["),
        (lambda s: s.update(weights=[0.0] * len(s["tokenIds"])), "samples:"),
        (lambda s: s.pop("parents"), "samples[0].positions:"),
    ],
)
def test_tree_fields_are_validated(engine: Engine, mutate: Any, field: str) -> None:
    n = 8
    sample = {
        "tokenIds": list(range(3, 3 + n)),
        "lossMask": [0] + [1] * (n - 1),
        "advantages": 1.0,
        "rolloutLogprobs": [0.0] + [-1.0] * (n - 1),
        "parents": [-1, 0, 1, 2, 1, 4, 4, 0],
        "positions": [0, 1, 2, 3, 2, 3, 3, 1],
        "weights": [0.0] + [1.0] * (n - 1),
    }
    engine.train_step({"samples": [dict(sample)], "hyper": {"lr": 1e-3, "dryRun": True}})  # valid as given
    mutate(sample)
    with pytest.raises(EngineError) as info:
        engine.train_step({"samples": [sample], "hyper": {"lr": 1e-3}})
    assert info.value.type == "invalid_params" and info.value.message.startswith(field), info.value.message
    assert engine.weight_version == 0


def test_tree_depth_not_length_must_fit_the_context(engine: Engine) -> None:
    context = engine.loaded.context_length
    width = context // 2 + 8  # two branches of `width` tokens under one root: 2·width tokens, depth width + 1
    ids = [5] + [6] * width * 2
    parents = [-1] + [0] + list(range(1, width)) + [0] + list(range(width + 1, 2 * width))
    out = engine.logprobs({"sequences": [{"tokenIds": ids, "parents": parents}]})["logprobs"][0]
    assert len(ids) > context and len(out) == len(ids)
    assert abs(out[1] - out[width + 1]) < 1e-5 and abs(out[width] - out[2 * width]) < 1e-5
    deep = [-1] + list(range(context))
    with pytest.raises(EngineError) as info:
        engine.logprobs({"sequences": [{"tokenIds": [5] * (context + 1), "parents": deep}]})
    assert info.value.type == "context_overflow"
