"""Numeric helpers against hand-computed values."""

from __future__ import annotations

import math

import torch
from agentjet_engine.losses import entropy_from_logits, gather_logprobs, k3_kl, masked_mean, masked_sum, ppo_clip_loss


def test_gather_logprobs_matches_log_softmax_by_hand() -> None:
    logits = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    tokens = torch.tensor([2, 1])
    z = math.log(math.exp(1) + math.exp(2) + math.exp(3))
    expected = torch.tensor([3.0 - z, -math.log(3.0)])
    assert torch.allclose(gather_logprobs(logits, tokens), expected, atol=1e-6)


def test_gather_logprobs_is_fp32_for_bf16_logits() -> None:
    out = gather_logprobs(torch.zeros(2, 4, dtype=torch.bfloat16), torch.tensor([0, 3]))
    assert out.dtype == torch.float32
    assert torch.allclose(out, torch.full((2,), -math.log(4.0)))


def test_entropy_uniform_and_peaked() -> None:
    logits = torch.tensor([[0.0, 0.0, 0.0, 0.0], [100.0, 0.0, 0.0, 0.0]])
    ent = entropy_from_logits(logits)
    assert math.isclose(ent[0].item(), math.log(4.0), rel_tol=1e-6)
    assert ent[1].item() < 1e-30 + 1e-6


def test_masked_sum_and_mean_ignore_masked_out_nan_and_inf() -> None:
    values = torch.tensor([1.0, 2.0, float("nan"), float("inf"), 4.0])
    mask = torch.tensor([1, 1, 0, 0, 1])
    assert masked_sum(values, mask).item() == 7.0
    assert math.isclose(masked_mean(values, mask).item(), 7.0 / 3.0, rel_tol=1e-6)
    assert masked_mean(values, mask, denominator=7.0).item() == 1.0
    assert masked_mean(values, torch.zeros(5)).item() == 0.0


def test_ppo_clip_loss_by_hand() -> None:
    # ratios e^0.5 (≈1.65, clipped at 1.2 for A>0), e^-0.5 (≈0.61, clipped at 0.8 for A<0),
    # e^0.1 (≈1.105 inside the range), and a masked-out position with garbage inputs.
    logp = torch.tensor([0.5, -0.5, 0.1, 0.0], requires_grad=True)
    rollout = torch.tensor([0.0, 0.0, 0.0, float("inf")])
    adv = torch.tensor([2.0, -1.0, 3.0, float("nan")])
    mask = torch.tensor([1, 1, 1, 0])
    loss, clipped, ratio = ppo_clip_loss(logp, rollout, adv, mask, clip_low=0.2, clip_high=0.2)
    expected = [-1.2 * 2.0, -(0.8 * -1.0), -(math.exp(0.1) * 3.0), 0.0]
    assert torch.allclose(loss, torch.tensor(expected), atol=1e-6)
    assert clipped.tolist() == [True, True, False, False]
    assert math.isclose(ratio[0].item(), math.exp(0.5), rel_tol=1e-6)
    loss.sum().backward()
    # clipped branches carry no gradient; the unclipped one has d/dlogp(-r·A) = -r·A
    assert torch.allclose(logp.grad, torch.tensor([0.0, 0.0, -math.exp(0.1) * 3.0, 0.0]), atol=1e-6)


def test_ppo_clip_loss_asymmetric_clip_high() -> None:
    logp = torch.tensor([math.log(1.25)])
    loss, clipped, _ = ppo_clip_loss(logp, torch.zeros(1), torch.ones(1), torch.ones(1), 0.2, 0.28)
    assert not clipped.item()
    assert math.isclose(loss.item(), -1.25, rel_tol=1e-6)


def test_ppo_clip_on_policy_is_minus_advantage() -> None:
    logp = torch.tensor([-1.3, -0.2])
    loss, clipped, _ = ppo_clip_loss(logp, logp.clone(), torch.tensor([0.7, -0.4]), torch.ones(2), 0.2, 0.2)
    assert torch.allclose(loss, torch.tensor([-0.7, 0.4]))
    assert not clipped.any()


def test_k3_kl_by_hand() -> None:
    logp = torch.tensor([-1.0, -2.0, -0.5])
    ref = torch.tensor([-1.0, -1.0, -1.5])
    d = (ref - logp).tolist()
    expected = [math.exp(x) - x - 1 for x in d]
    out = k3_kl(logp, ref)
    assert torch.allclose(out, torch.tensor(expected), atol=1e-6)
    assert out[0].item() == 0.0 and (out >= 0).all()
