"""Teacher-forced scoring: per-token logprobs (and entropies) of given sequences, for `logprobs` and
`train_step`.

The main path runs the decoder to its last hidden states and takes only the positions that are
scored — every token for `logprobs`, the trained (loss-masked) tokens for `train_step` — through the
output head in chunks (`head.py`), so the full [tokens × vocab] logits tensor never exists. Token t
is predicted from the hidden state at t − 1, or at its parent in a tree row. The full-logits
functions (`forward_input`, `input_logprobs`) stay as the reference the tests compare against, and
for models whose logits are not a plain head over the decoder's output (`chunked_head_matches`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from .batching import pack_by_token_budget, positions_from_mask
from .head import head_logprobs, head_top_k
from .losses import gather_logprobs
from .trees import ModelInput, TokenSeq, make_input, parent_logprobs

# The most tokens per position a teacher sends with `logprobs`' `topK` (what distillation trains on).
MAX_TOP_K = 64
# The most (token, top-k entry) pairs one `logprobs` reply may carry (a teacher asks for 4,096 tokens at a time).
MAX_TOP_ENTRIES = 1 << 20


def scoring_batch_tokens(vocab_size: int) -> int:
    """Padded tokens per scoring forward. The head is chunked, so the vocabulary no longer bounds it."""
    del vocab_size
    return 16384


@dataclass
class Targets:
    """The N scored tokens of a micro-batch: row, position, the position predicting it, its id."""

    rows: Tensor
    cols: Tensor
    source: Tensor
    tokens: Tensor

    def __len__(self) -> int:
        return int(self.rows.shape[0])


def predicting_positions(inp: ModelInput) -> Tensor:
    """(B, T) position whose hidden state predicts each token: t − 1, or the parent; −1 at roots."""
    if inp.parents is not None:
        return inp.parents
    batch, width = inp.ids.shape
    return (torch.arange(width, device=inp.ids.device) - 1).expand(batch, width)


def select_targets(inp: ModelInput, mask: Tensor | None = None) -> Targets:
    """Every non-root real token (`mask` None), or those where `mask` (B, T) is true."""
    source = predicting_positions(inp)
    keep = source >= 0
    if inp.real.numel():
        keep = keep & inp.real
    if mask is not None:
        keep = keep & mask.bool()
    rows, cols = keep.nonzero(as_tuple=True)
    return Targets(rows, cols, source[rows, cols], inp.ids[rows, cols])


def decoder_hidden(model: Any, inp: ModelInput) -> Tensor:
    """(B, T, H) last hidden states (after the final norm) of the model's decoder."""
    out = model.get_decoder()(
        input_ids=inp.ids, attention_mask=inp.mask_for(model), position_ids=inp.position_ids, use_cache=False
    )
    return out.last_hidden_state


class PolicyScorer(torch.nn.Module):
    """The policy as one module whose forward is a whole scoring pass (decoder + chunked head).

    FSDP shards this module as its root, so the head's (tied) weight is gathered inside the root's
    forward like every other parameter; single-process code calls it the same way. The language
    model is `self.lm` (a transformers model or a peft model around one).
    """

    def __init__(self, lm: Any) -> None:
        super().__init__()
        self.lm = lm

    def forward(
        self, inp: ModelInput, targets: Targets, chunk: int | None = None, extra: Tensor | None = None
    ) -> tuple[Tensor, Tensor]:
        """(logp (N,), entropy (N,)); with `extra` (N, K) more tokens per target (a teacher's top-k),
        logp is (N, 1 + K): the target's column first, then the extra tokens' from the same logits."""
        hidden = decoder_hidden(self.lm, inp)
        picked = hidden[targets.rows, targets.source]
        tokens = targets.tokens if extra is None else torch.cat([targets.tokens.unsqueeze(1), extra], 1)
        return head_logprobs(self.lm.get_output_embeddings(), picked, tokens, chunk)


def score_targets(
    scorer: Any,
    inp: ModelInput,
    targets: Targets,
    autocast: contextlib.AbstractContextManager[Any] | None = None,
    chunk: int | None = None,
    extra: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """(logp, entropy), both (N,) fp32, of `targets` under `scorer` (a PolicyScorer or a bare model);
    logp is (N, 1 + K) with `extra` (N, K) tokens per target (`PolicyScorer.forward`)."""
    if not isinstance(scorer, PolicyScorer):  # (fully_shard keeps the class: it derives a subclass)
        scorer = PolicyScorer(scorer)
    with autocast or contextlib.nullcontext():
        return scorer(inp, targets, chunk) if extra is None else scorer(inp, targets, chunk, extra)


def scatter_rows(values: Tensor, targets: Targets, shape: tuple[int, int]) -> Tensor:
    """(B, T) zeros with `values` at the targets' positions."""
    out = values.new_zeros(shape)
    out[targets.rows, targets.cols] = values
    return out


# ---- the full-logits reference -------------------------------------------------------------------
def forward_logits(
    model: Any, ids: Tensor, mask: Tensor, autocast: contextlib.AbstractContextManager[Any] | None = None
) -> Tensor:
    """Logits (B, T, V) for right-padded `ids` with explicit position ids (0 at each first token)."""
    with autocast or contextlib.nullcontext():
        return model(input_ids=ids, attention_mask=mask, position_ids=positions_from_mask(mask), use_cache=False).logits


def forward_input(
    model: Any, inp: ModelInput, autocast: contextlib.AbstractContextManager[Any] | None = None
) -> Tensor:
    """Logits (B, T, V) of a micro-batch that may hold tree rows (reference path: full logits)."""
    with autocast or contextlib.nullcontext():
        return model(
            input_ids=inp.ids, attention_mask=inp.mask_for(model), position_ids=inp.position_ids, use_cache=False
        ).logits


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
def chunked_head_matches(
    model: Any, autocast: contextlib.AbstractContextManager[Any] | None = None, tolerance: float = 1e-4
) -> bool:
    """Whether decoder + chunked head reproduces the model's own logprobs (false e.g. for models that
    scale or soft-cap their logits in the LM forward); checked once at load on a few tokens."""
    vocab = int(model.get_input_embeddings().num_embeddings)
    ids = [(7 * i + 3) % vocab for i in range(12)]
    inp = make_input([TokenSeq(ids)], pad_id=0, device=model.device)
    try:
        reference = input_logprobs(forward_input(model, inp, autocast), inp)[0, 1:]
        targets = select_targets(inp)
        logp, _ = score_targets(model, inp, targets, autocast)
    except Exception:  # an architecture without get_decoder()/last_hidden_state
        return False
    return bool((logp.float() - reference.float()).abs().max() <= tolerance)


@torch.inference_mode()
def tree_segments_match(
    model: Any,
    autocast: contextlib.AbstractContextManager[Any] | None = None,
    tolerance: float = 1e-4,
    mask_dtype: torch.dtype = torch.float32,
) -> bool:
    """Whether the model takes the segment plan (tree_attention.py) and it reproduces the dense
    reference mask's logits on a small tree beside a linear row; checked once at load."""
    vocab = int(model.get_input_embeddings().num_embeddings)
    ids = [(5 * i + 1) % vocab for i in range(9)]
    tree = TokenSeq(ids, [-1, 0, 1, 2, 1, 4, 0, 6, 7])
    seqs = [tree, TokenSeq(ids[:5])]
    try:
        dense = make_input(seqs, 0, mask_dtype, model.device, "dense")
        plan = make_input(seqs, 0, mask_dtype, model.device, "segments")
        a, b = forward_input(model, dense, autocast), forward_input(model, plan, autocast)
    except Exception:  # a decoder that does not take the mask mapping, or no agentjet_sdpa attention
        return False
    real = dense.real
    return bool((a[real].float() - b[real].float()).abs().max() <= tolerance)


@torch.inference_mode()
def score_sequences(
    model: Any,
    sequences: Sequence[list[int] | TokenSeq],
    *,
    pad_id: int,
    device: torch.device,
    autocast: contextlib.AbstractContextManager[Any] | None = None,
    batch_tokens: int | None = None,
    mask_dtype: torch.dtype = torch.float32,
    tree_attention: str = "segments",
    chunked: bool = True,
) -> list[list[float]]:
    """logprobs[i][t] = log p(seq_i[t] | context of t) (0 at the root), batched by a padded-token budget.

    The context is every earlier token for a plain list / linear `TokenSeq`, and the token's
    ancestors for a tree `TokenSeq`. `chunked=False` uses the full-logits reference path.
    """
    if batch_tokens is None:
        batch_tokens = scoring_batch_tokens(model.get_output_embeddings().out_features)
    seqs = [s if isinstance(s, TokenSeq) else TokenSeq(list(s)) for s in sequences]
    out: list[list[float]] = [[] for _ in seqs]
    for batch in pack_by_token_budget([len(s.ids) for s in seqs], batch_tokens):
        inp = make_input([seqs[i] for i in batch], pad_id, mask_dtype, device, tree_attention)
        if chunked:
            targets = select_targets(inp)
            logp, _ = score_targets(model, inp, targets, autocast)
            lp = scatter_rows(logp, targets, tuple(inp.ids.shape)).cpu()
        else:
            lp = input_logprobs(forward_input(model, inp, autocast), inp).cpu()
        for row, i in enumerate(batch):
            out[i] = lp[row, : len(seqs[i].ids)].tolist()
    return out


@torch.inference_mode()
def score_top_k(
    model: Any,
    sequences: Sequence[TokenSeq],
    k: int,
    *,
    pad_id: int,
    device: torch.device,
    autocast: contextlib.AbstractContextManager[Any] | None = None,
    batch_tokens: int | None = None,
    mask_dtype: torch.dtype = torch.float32,
    tree_attention: str = "segments",
    chunked: bool = True,
) -> list[tuple[list[float], list[list[int]], list[list[float]]]]:
    """Per sequence (logprobs[t], ids[t], top[t]): `score_sequences`' logprob of each token, and the
    k most likely tokens at its position (the distribution token t was drawn from) with their
    logprobs, most likely first (empty at the root), from one forward pass. What an on-policy
    distillation teacher sends with `topK` (PROTOCOL.md, `logprobs`)."""
    if batch_tokens is None:
        batch_tokens = scoring_batch_tokens(model.get_output_embeddings().out_features)
    out: list[tuple[list[float], list[list[int]], list[list[float]]]] = [
        ([0.0] * len(s.ids), [[] for _ in s.ids], [[] for _ in s.ids]) for s in sequences
    ]
    for batch in pack_by_token_budget([len(s.ids) for s in sequences], batch_tokens):
        inp = make_input([sequences[i] for i in batch], pad_id, mask_dtype, device, tree_attention)
        targets = select_targets(inp)
        with autocast or contextlib.nullcontext():
            if chunked:
                picked = decoder_hidden(model, inp)[targets.rows, targets.source]
                ids, logp, own = head_top_k(model.get_output_embeddings(), picked, k, tokens=targets.tokens)
            else:
                full = torch.log_softmax(forward_input(model, inp)[targets.rows, targets.source].float(), -1)
                top = torch.topk(full, min(k, full.shape[-1]), dim=-1)
                ids, logp, own = top.indices, top.values, full.gather(1, targets.tokens.unsqueeze(1)).squeeze(1)
        rows = zip(targets.rows.tolist(), targets.cols.tolist(), own.tolist(), ids.tolist(), logp.tolist())
        for r, c, own_lp, row_ids, row_lp in rows:
            seq_own, seq_ids, seq_lp = out[batch[r]]
            seq_own[c], seq_ids[c], seq_lp[c] = own_lp, row_ids, row_lp
    return out
