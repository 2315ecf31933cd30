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


def _inverse_cdf(probs: Tensor, uniforms: Tensor) -> Tensor:
    """Index where the cumulative mass of each row of `probs` (B, V) passes its uniform's share."""
    cdf = probs.cumsum(-1)
    target = uniforms.unsqueeze(-1) * cdf[:, -1:]
    pick = torch.searchsorted(cdf, target, right=True).clamp(max=probs.shape[-1] - 1)
    # Rounding at the very end can land on a zero-probability entry: step back to the last kept one.
    last_kept = probs.shape[-1] - 1 - (probs.flip(-1) > 0).to(torch.int8).argmax(-1, keepdim=True)
    return torch.minimum(pick, last_kept)


def sample_tokens(logits: Tensor, temperature: Tensor, top_p: Tensor, uniforms: Tensor) -> Tensor:
    """Pick one token per row of `logits` (B, V).

    Rows with temperature 0 take the argmax. Other rows sample from softmax(logits / temperature)
    by inverse CDF at the row's uniform draw in [0, 1), over the vocabulary in id order — no sort.
    Rows with top-p < 1 are restricted to the nucleus, which needs their probabilities sorted: only
    those rows are sorted. Given the same logits and uniforms the choice is deterministic on any
    device, so reproducibility only needs a per-request generator for the uniforms (drawn on CPU).
    """
    logits = logits.float()
    greedy = logits.argmax(-1)
    sampled_rows = temperature > 0
    if not bool(sampled_rows.any()):
        return greedy
    safe_t = torch.where(sampled_rows, temperature, torch.ones_like(temperature))
    probs = torch.softmax(logits / safe_t.unsqueeze(-1), dim=-1)
    sampled = _inverse_cdf(probs, uniforms).squeeze(-1)
    nucleus = sampled_rows & (top_p < 1.0)
    if bool(nucleus.any()):
        rows = nucleus.nonzero().squeeze(-1)
        sorted_probs, order = probs[rows].sort(dim=-1, descending=True, stable=True)
        kept = torch.where(top_p_keep(sorted_probs, top_p[rows]), sorted_probs, torch.zeros_like(sorted_probs))
        pick = _inverse_cdf(kept, uniforms[rows])
        sampled[rows] = order.gather(-1, pick).squeeze(-1)
    return torch.where(sampled_rows, sampled, greedy)
