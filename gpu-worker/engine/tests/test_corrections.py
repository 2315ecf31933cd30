"""Off-policy corrections: the weights each mode gives, their gradients, and a train step with each."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
import torch
from agentjet_engine.corrections import Correction, behaviour_weights, corrected_loss, mismatch_kl
from agentjet_engine.engine import Engine

# π_prox/π_behav = 0.25, 1, 3 at the three tokens
PROX = torch.log(torch.tensor([0.25, 0.5, 0.75]))
BEHAV = torch.log(torch.tensor([1.0, 0.5, 0.25]))


def test_each_mode_weights_and_marks_the_tokens_it_touches() -> None:
    w, hit = behaviour_weights(PROX, BEHAV, Correction("tis", cap=2.0))
    assert w.tolist() == pytest.approx([0.25, 1.0, 2.0]) and hit.tolist() == [False, False, True]
    w, hit = behaviour_weights(PROX, BEHAV, Correction("decoupled", cap=2.0))
    assert w.tolist() == pytest.approx([0.25, 1.0, 0.0]) and hit.tolist() == [False, False, True]
    w, hit = behaviour_weights(PROX, BEHAV, Correction("mis", low=0.5, high=2.0))
    assert w.tolist() == pytest.approx([0.0, 1.0, 0.0]) and hit.tolist() == [True, False, True]
    w, hit = behaviour_weights(PROX, BEHAV, Correction())
    assert w.tolist() == [1.0, 1.0, 1.0] and not hit.any()


def test_the_corrected_gradient_is_the_weighted_policy_gradient() -> None:
    logp = PROX.clone().requires_grad_(True)
    adv = torch.tensor([1.0, -1.0, 2.0])
    mask = torch.ones(3, dtype=torch.bool)
    loss, clipped, hit = corrected_loss(logp, BEHAV, adv, mask, 0.2, 0.2, Correction("tis", cap=2.0))
    loss.sum().backward()
    assert logp.grad is not None
    assert logp.grad.tolist() == pytest.approx([-0.25, 1.0, -4.0])  # −w·A (the ratio to π_prox is 1)
    assert not clipped.any() and hit.tolist() == [False, False, True]


def test_none_is_ppo_clip_against_the_behaviour() -> None:
    logp = PROX.clone().requires_grad_(True)
    adv = torch.ones(3)
    loss, clipped, _ = corrected_loss(logp, BEHAV, adv, torch.ones(3, dtype=torch.bool), 0.2, 0.2, Correction())
    assert clipped.tolist() == [False, False, True]  # ratio 3 > 1.2 with A > 0
    assert loss.tolist() == pytest.approx([-0.25, -1.0, -1.2])


def test_mismatch_kl_is_zero_on_policy_and_positive_off() -> None:
    assert mismatch_kl(BEHAV, BEHAV).abs().max() == 0
    assert float(mismatch_kl(PROX, BEHAV).mean()) > 0


@pytest.mark.parametrize("mode", ["none", "decoupled", "tis", "mis"])
def test_a_train_step_reports_mismatch_and_corrected_fraction(make_engine: Callable[..., Engine], mode: str) -> None:
    engine = make_engine()
    ids = [5, 9, 17, 33, 40, 41]
    sample: dict[str, Any] = {
        "tokenIds": ids,
        "lossMask": [0, 0, 0, 1, 1, 1],
        "advantages": 1.0,
        "rolloutLogprobs": [0.0, 0.0, 0.0, -0.1, -9.0, -6.0],  # far from the trainer's: off-policy
    }
    stats = engine.train_step({"samples": [sample], "hyper": {"lr": 1e-3, "correction": mode}})
    assert stats["correction"] == mode and stats["mismatchKl"] > 0 and math.isfinite(stats["loss"])
    assert (stats["correctedFraction"] > 0) == (mode != "none")
