"""Teacher-forced scoring: per-token logprobs of given sequences (used by `logprobs` and `train_step`)."""

from __future__ import annotations

import contextlib
from typing import Any

import torch
from torch import Tensor

from .batching import pack_by_token_budget, pad_right, positions_from_mask
from .losses import gather_logprobs

def scoring_batch_tokens(vocab_size: int) -> int:
    """Padded tokens per scoring forward: up to 16k, fewer for big vocabularies (~2 GiB of fp32 logits)."""
    return max(256, min(16384, 2**29 // max(1, vocab_size)))


def forward_logits(model: Any, ids: Tensor, mask: Tensor,
                   autocast: contextlib.AbstractContextManager[Any] | None = None) -> Tensor:
    """Logits (B, T, V) for right-padded `ids` with explicit position ids (0 at each first token)."""
    with autocast or contextlib.nullcontext():
        return model(input_ids=ids, attention_mask=mask, position_ids=positions_from_mask(mask),
                     use_cache=False).logits


def shifted_logprobs(logits: Tensor, ids: Tensor) -> Tensor:
    """(B, T) with [:, t] = log p(ids[:, t] | ids[:, <t]) for t ≥ 1 and 0 at t = 0."""
    lp = gather_logprobs(logits[:, :-1], ids[:, 1:])
    return torch.cat([torch.zeros_like(lp[:, :1]), lp], dim=1)


@torch.inference_mode()
def score_sequences(model: Any, sequences: list[list[int]], *, pad_id: int, device: torch.device,
                    autocast: contextlib.AbstractContextManager[Any] | None = None,
                    batch_tokens: int | None = None) -> list[list[float]]:
    """logprobs[i][t] = log p(seq_i[t] | seq_i[<t]) (0 at t = 0), batched by a padded-token budget."""
    if batch_tokens is None:
        batch_tokens = scoring_batch_tokens(model.get_output_embeddings().out_features)
    out: list[list[float]] = [[] for _ in sequences]
    for batch in pack_by_token_budget([len(s) for s in sequences], batch_tokens):
        ids, mask = pad_right([sequences[i] for i in batch], pad_id)
        ids, mask = ids.to(device), mask.to(device)
        lp = shifted_logprobs(forward_logits(model, ids, mask, autocast), ids).cpu()
        for row, i in enumerate(batch):
            out[i] = lp[row, : len(sequences[i])].tolist()
    return out
