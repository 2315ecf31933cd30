"""Pure batching helpers: token-budget packing and left/right padding of token sequences."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor


def pack_by_token_budget(lengths: Sequence[int], budget: int) -> list[list[int]]:
    """Group sequence indices into micro-batches whose padded size (count × longest) fits `budget`.

    Sequences are taken longest first so similar lengths share a batch (little padding); a sequence
    longer than the budget gets a micro-batch of its own. Every index appears exactly once.
    """
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    batches: list[list[int]] = []
    current: list[int] = []
    longest = 0
    for i in order:
        n = lengths[i]
        if current and max(longest, n) * (len(current) + 1) > budget:
            batches.append(current)
            current, longest = [], 0
        current.append(i)
        longest = max(longest, n)
    if current:
        batches.append(current)
    return batches


def pad_right(seqs: Sequence[Sequence[int]], pad_id: int) -> tuple[Tensor, Tensor]:
    """(ids, attention_mask), both (B, T) int64, padding after each sequence."""
    width = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(seqs), width), dtype=torch.long)
    for row, s in enumerate(seqs):
        ids[row, : len(s)] = torch.tensor(s, dtype=torch.long)
        mask[row, : len(s)] = 1
    return ids, mask


def pad_left(seqs: Sequence[Sequence[int]], pad_id: int) -> tuple[Tensor, Tensor]:
    """(ids, attention_mask), both (B, T) int64, padding before each sequence."""
    width = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(seqs), width), dtype=torch.long)
    for row, s in enumerate(seqs):
        if s:
            ids[row, width - len(s) :] = torch.tensor(s, dtype=torch.long)
            mask[row, width - len(s) :] = 1
    return ids, mask


def positions_from_mask(attention_mask: Tensor) -> Tensor:
    """Position ids counting only real tokens (0 at each row's first real token); pads get 0."""
    return (attention_mask.long().cumsum(-1) - 1).clamp(min=0)
