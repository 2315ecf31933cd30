"""Teacher-forced scoring: per-token logprobs of given sequences (used by `logprobs` and `train_step`)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor

from .batching import pack_by_token_budget, positions_from_mask
from .losses import gather_logprobs
from .trees import ModelInput, TokenSeq, make_input, parent_logprobs


def scoring_batch_tokens(vocab_size: int) -> int:
    """Padded tokens per scoring forward: up to 16k, fewer for big vocabularies (~2 GiB of fp32 logits)."""
    return max(256, min(16384, 2**29 // max(1, vocab_size)))


def forward_logits(model: Any, ids: Tensor, mask: Tensor,
                   autocast: contextlib.AbstractContextManager[Any] | None = None) -> Tensor:
    """Logits (B, T, V) for right-padded `ids` with explicit position ids (0 at each first token)."""
    with autocast or contextlib.nullcontext():
        return model(input_ids=ids, attention_mask=mask, position_ids=positions_from_mask(mask),
                     use_cache=False).logits


def forward_input(model: Any, inp: ModelInput,
                  autocast: contextlib.AbstractContextManager[Any] | None = None) -> Tensor:
    """Logits (B, T, V) of a micro-batch that may hold tree rows (4-D mask, depth position ids)."""
    with autocast or contextlib.nullcontext():
        return model(input_ids=inp.ids, attention_mask=inp.attention_mask, position_ids=inp.position_ids,
                     use_cache=False).logits


def shifted_logprobs(logits: Tensor, ids: Tensor) -> Tensor:
    """(B, T) with [:, t] = log p(ids[:, t] | ids[:, <t]) for t ≥ 1 and 0 at t = 0."""
    lp = gather_logprobs(logits[:, :-1], ids[:, 1:])
    return torch.cat([torch.zeros_like(lp[:, :1]), lp], dim=1)


def input_logprobs(logits: Tensor, inp: ModelInput) -> Tensor:
    """(B, T) logprob of each token given its context: from the logits at its parent (t − 1 when linear)."""
    if inp.parents is None:
        return shifted_logprobs(logits, inp.ids)
    return parent_logprobs(logits, inp.ids, inp.parents)


@torch.inference_mode()
def score_sequences(model: Any, sequences: Sequence[list[int] | TokenSeq], *, pad_id: int, device: torch.device,
                    autocast: contextlib.AbstractContextManager[Any] | None = None,
                    batch_tokens: int | None = None, mask_dtype: torch.dtype = torch.float32) -> list[list[float]]:
    """logprobs[i][t] = log p(seq_i[t] | context of t) (0 at the root), batched by a padded-token budget.

    The context is every earlier token for a plain list / linear `TokenSeq`, and the token's
    ancestors for a tree `TokenSeq`.
    """
    if batch_tokens is None:
        batch_tokens = scoring_batch_tokens(model.get_output_embeddings().out_features)
    seqs = [s if isinstance(s, TokenSeq) else TokenSeq(list(s)) for s in sequences]
    out: list[list[float]] = [[] for _ in seqs]
    for batch in pack_by_token_budget([len(s.ids) for s in seqs], batch_tokens):
        inp = make_input([seqs[i] for i in batch], pad_id, mask_dtype, device)
        lp = input_logprobs(forward_input(model, inp, autocast), inp).cpu()
        for row, i in enumerate(batch):
            out[i] = lp[row, : len(seqs[i].ids)].tolist()
    return out
