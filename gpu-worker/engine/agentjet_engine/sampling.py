"""Pure token sampling: temperature, nucleus (top-p) filtering and inverse-CDF draws from given uniforms."""

from __future__ import annotations

import torch
from torch import Tensor


def top_p_keep(sorted_probs: Tensor, top_p: Tensor) -> Tensor:
    """Nucleus mask over probabilities sorted descending along the last axis.

    Keeps the smallest prefix whose mass reaches `top_p` (per row); the top token is always kept.
    sorted_probs: (B, V); top_p: (B,) → bool (B, V).
    """
    mass_before = sorted_probs.cumsum(-1) - sorted_probs
    top_p = top_p.unsqueeze(-1)
    return (mass_before < top_p) | (top_p >= 1.0)  # top_p = 1 keeps everything despite float rounding


def sample_tokens(logits: Tensor, temperature: Tensor, top_p: Tensor, uniforms: Tensor) -> Tensor:
    """Pick one token per row of `logits` (B, V).

    Rows with temperature 0 take the argmax. Other rows sample from softmax(logits / temperature)
    restricted to the top-p nucleus, by inverse CDF at the row's uniform draw in [0, 1): given the
    same logits and uniforms the choice is deterministic on any device, so reproducibility only
    needs a per-request generator for the uniforms (drawn on CPU).
    """
    logits = logits.float()
    greedy = logits.argmax(-1)
    safe_t = torch.where(temperature > 0, temperature, torch.ones_like(temperature))
    probs = torch.softmax(logits / safe_t.unsqueeze(-1), dim=-1)
    sorted_probs, order = probs.sort(dim=-1, descending=True, stable=True)
    kept = torch.where(top_p_keep(sorted_probs, top_p), sorted_probs, torch.zeros_like(sorted_probs))
    cdf = kept.cumsum(-1)
    target = uniforms.unsqueeze(-1) * cdf[:, -1:]
    pick = torch.searchsorted(cdf, target, right=True).clamp(max=logits.shape[-1] - 1)
    # searchsorted can land on a zero-probability tail entry only through rounding at the very end;
    # step back to the last kept entry in that case.
    n_kept = (kept > 0).sum(-1, keepdim=True).clamp(min=1)
    pick = torch.minimum(pick, n_kept - 1)
    sampled = order.gather(-1, pick).squeeze(-1)
    return torch.where(temperature > 0, sampled, greedy)
