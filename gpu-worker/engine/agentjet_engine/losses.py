"""Pure numeric helpers for the policy-gradient loss: log-prob gather, masked means, PPO-clip, k3 KL, entropy."""

from __future__ import annotations

import torch
from torch import Tensor


def gather_logprobs(logits: Tensor, tokens: Tensor) -> Tensor:
    """log softmax(logits)[tokens] in fp32, without materialising the full log-softmax.

    logits: (..., V); tokens: (...) int64 → (...) float32.
    """
    logits = logits.float()
    picked = logits.gather(-1, tokens.unsqueeze(-1)).squeeze(-1)
    return picked - torch.logsumexp(logits, dim=-1)


def entropy_from_logits(logits: Tensor) -> Tensor:
    """Entropy of softmax(logits) along the last axis, in fp32: (..., V) → (...)."""
    logp = torch.log_softmax(logits.float(), dim=-1)
    return -(logp.exp() * logp).sum(-1)


def masked_sum(values: Tensor, mask: Tensor) -> Tensor:
    """Sum of `values` where `mask` is true; masked-out entries (even inf/nan) contribute exactly 0."""
    return torch.where(mask.bool(), values, torch.zeros_like(values)).sum()


def masked_mean(values: Tensor, mask: Tensor, denominator: float | Tensor | None = None) -> Tensor:
    """masked_sum / denominator (default: the number of masked entries, at least 1)."""
    if denominator is None:
        denominator = mask.bool().sum().clamp(min=1)
    return masked_sum(values, mask) / denominator


def ppo_clip_loss(
    logp: Tensor, rollout_logp: Tensor, advantages: Tensor, mask: Tensor, clip_low: float, clip_high: float
) -> tuple[Tensor, Tensor, Tensor]:
    """Per-token PPO-clip loss −min(r·A, clip(r, 1−clip_low, 1+clip_high)·A), r = exp(logp − rollout_logp).

    Positions outside `mask` are neutralised before any arithmetic (their rollout logprob and
    advantage are never read), so they yield a loss of exactly 0 and no gradient.
    Returns (loss per token, clipped: bool per token where the clipped branch was taken, ratio).
    """
    mask = mask.bool()
    rollout_logp = torch.where(mask, rollout_logp, logp.detach())
    advantages = torch.where(mask, advantages, torch.zeros_like(advantages))
    ratio = torch.exp(logp - rollout_logp)
    unclipped = ratio * advantages
    clipped_ratio = torch.clamp(ratio, 1.0 - clip_low, 1.0 + clip_high)
    clipped = clipped_ratio * advantages
    loss = -torch.minimum(unclipped, clipped)
    took_clip = (clipped < unclipped) & mask
    return torch.where(mask, loss, torch.zeros_like(loss)), took_clip, ratio


def k3_kl(logp: Tensor, ref_logp: Tensor) -> Tensor:
    """Per-token k3 estimator of KL(π‖π_ref) from samples of π: exp(d) − d − 1 with d = ref_logp − logp.

    Always ≥ 0, unbiased, and its gradient w.r.t. logp flows through both terms.
    """
    d = ref_logp - logp
    return torch.exp(d) - d - 1.0
