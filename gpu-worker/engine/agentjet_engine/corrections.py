"""Off-policy corrections of the policy-gradient loss (issue #21 §3): the behaviour policy that sampled a
token (a replica, perhaps several versions old, perhaps bf16 kernels) is not the trainer's.

- `none`: PPO-clip with the ratio against the behaviour logprobs (the loss before this module).
- `decoupled` (AReaL's decoupled PPO): the trust region is around the *proximal* policy — the trainer's
  own logprobs under its current weights, recomputed by the step's forward pass — and each token is
  weighted by π_prox/π_behav; tokens whose weight exceeds `cap` are masked.
- `tis` (truncated importance sampling): the same, with the weight truncated at `cap` instead.
- `mis` (masked importance sampling, IcePop): the weight kept where it lies in [`low`, `high`], the token
  masked outside.

The step runs one optimizer update per batch, so at the forward pass the trainer's weights *are* the
proximal policy: its logprobs (detached) are exact without a second pass. All modes apply in synchronous
mode too, where they correct the serving/training kernel and dtype mismatch.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from .losses import ppo_clip_loss

MODES = ("none", "decoupled", "tis", "mis")


@dataclass(frozen=True)
class Correction:
    mode: str = "none"
    cap: float = 2.0  # decoupled: mask above; tis: truncate at
    low: float = 0.5  # mis: mask below
    high: float = 2.0  # mis: mask above


def behaviour_weights(prox: Tensor, behaviour: Tensor, c: Correction) -> tuple[Tensor, Tensor]:
    """(w = corrected π_prox/π_behav per token, detached; bool per token that the correction truncated or masked)."""
    ratio = torch.exp(prox.detach() - behaviour)
    if c.mode == "tis":
        hit = ratio > c.cap
        return torch.clamp(ratio, max=c.cap), hit
    if c.mode == "decoupled":
        hit = ratio > c.cap
        return torch.where(hit, torch.zeros_like(ratio), ratio), hit
    if c.mode == "mis":
        hit = (ratio < c.low) | (ratio > c.high)
        return torch.where(hit, torch.zeros_like(ratio), ratio), hit
    return torch.ones_like(ratio), torch.zeros_like(ratio, dtype=torch.bool)


def corrected_loss(
    logp: Tensor, behaviour: Tensor, adv: Tensor, mask: Tensor, clip_low: float, clip_high: float, c: Correction
) -> tuple[Tensor, Tensor, Tensor]:
    """(per-token loss, PPO-clipped bool, correction-hit bool). `none` is plain PPO-clip vs the behaviour."""
    if c.mode == "none":
        loss, clipped, _ = ppo_clip_loss(logp, behaviour, adv, mask, clip_low, clip_high)
        return loss, clipped, torch.zeros_like(clipped)
    prox = logp.detach()
    w, hit = behaviour_weights(prox, behaviour, c)
    loss, clipped, _ = ppo_clip_loss(logp, prox, adv, mask, clip_low, clip_high)
    return loss * w, clipped, hit & mask.bool()


def mismatch_kl(logp: Tensor, behaviour: Tensor) -> Tensor:
    """Per-token k3 estimate of KL(π_behav ‖ π_trainer) from the behaviour's samples:
    e^d − d − 1, d = logp − behaviour."""
    d = logp.detach() - behaviour
    return torch.expm1(d) - d
