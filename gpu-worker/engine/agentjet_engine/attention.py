"""Attention of a serving forward over the slot KV store (`kv_store.py`), native to grouped-query heads.

Registered in transformers' `AttentionInterface` as `agentjet_slots` and switched on only for the
duration of a serving forward (`serving_attention`), so `logprobs` and `train_step` keep the model's
own attention. The step's flat token list is [one token per decoding row | prefill chunks]:

- decoding rows: one batched SDPA over the view `k[:D, :, :T]` with a (D, 1, 1, T) boolean mask of
  the ragged lengths; the query heads are folded onto their kv head (query (D, H, d) viewed as
  (D, H_kv, H/H_kv, d)), so no key/value is ever repeated per head and any SDPA kernel applies;
- each prefill chunk: SDPA over its own slot's view `k[s:s+1, :, :start+c]`, causal (no mask, the
  fast path) when the chunk starts the sequence, else with an offset causal mask; on CPU with
  `enable_gqa` (measured fastest there), elsewhere folded like the decode rows.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor
from transformers import AttentionInterface

from .kv_store import StepPlan

NAME = "agentjet_slots"


def _fold_query(q: Tensor, kv_heads: int) -> Tensor:
    """(B, H, n, d) → (B, H_kv, (H/H_kv)·n, d): query head h belongs to kv head h // (H/H_kv)."""
    b, h, n, d = q.shape
    return q.reshape(b, kv_heads, (h // kv_heads) * n, d)


def _fold_mask(mask: Tensor | None, groups: int) -> Tensor | None:
    """(B, 1, n, T) → (B, 1, groups·n, T) matching `_fold_query`'s row order (group-major)."""
    if mask is None or groups == 1:
        return mask
    b, _, n, t = mask.shape
    return mask.unsqueeze(2).expand(b, 1, groups, n, t).reshape(b, 1, groups * n, t)


def _attend(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None, scaling: float | None, causal: bool) -> Tensor:
    """SDPA with grouped kv heads; q (B, H, n, d), k/v (B, H_kv, T, d) → (B, H, n, d)."""
    heads, kv_heads = q.shape[1], k.shape[1]
    groups = heads // kv_heads
    if groups == 1:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal, scale=scaling)
    if q.device.type == "cpu" and q.shape[2] > 1:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal, scale=scaling, enable_gqa=True)
    if causal:  # folding breaks the causal alignment of `is_causal`: spell the mask out
        n, t = q.shape[2], k.shape[2]
        mask = torch.ones(n, t, dtype=torch.bool, device=q.device).tril(t - n)[None, None]
    out = F.scaled_dot_product_attention(
        _fold_query(q, kv_heads), k, v, attn_mask=_fold_mask(mask, groups), scale=scaling
    )
    return out.reshape(q.shape)


def slot_attention(
    module: Any,
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attention_mask: Any,
    scaling: float | None = None,
    dropout: float = 0.0,
    sliding_window: int | None = None,
    **kwargs: Any,
) -> tuple[Tensor, None]:
    """The `AttentionInterface` function: query (1, H, N, d) → output (1, N, H, d)."""
    plan: StepPlan = kwargs["agentjet_plan"]
    store, layer = plan.store, module.layer_idx
    k_all, v_all = store.k[layer], store.v[layer]
    pieces: list[Tensor] = []
    if plan.decode:
        q = query[0, :, : plan.decode].transpose(0, 1).unsqueeze(2)  # (D, H, 1, d)
        k = k_all[: plan.decode, :, : plan.decode_kv]
        v = v_all[: plan.decode, :, : plan.decode_kv]
        out = _attend(q.to(k.dtype), k, v, plan.decode_mask(sliding_window), scaling, causal=False)
        pieces.append(out.squeeze(2).unsqueeze(0))  # (1, D, H, d)
    for i, seg in enumerate(plan.segments):
        q = query[:, :, seg.offset : seg.offset + seg.count]  # (1, H, c, d)
        end = seg.start + seg.count
        k = k_all[seg.slot : seg.slot + 1, :, :end]
        v = v_all[seg.slot : seg.slot + 1, :, :end]
        mask = plan.segment_mask(i, sliding_window, query.device)
        out = _attend(q.to(k.dtype), k, v, mask, scaling, causal=mask is None)
        pieces.append(out.transpose(1, 2))  # (1, c, H, d)
    out = pieces[0] if len(pieces) == 1 else torch.cat(pieces, dim=1)
    return out.to(query.dtype), None


AttentionInterface.register(NAME, slot_attention)


def _configs(model: Any) -> list[Any]:
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    config = base.config
    configs = [config]
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    if text is not config:
        configs.append(text)
    return configs


@contextlib.contextmanager
def serving_attention(model: Any) -> Iterator[None]:
    """Routes the model's attention through `slot_attention` for the duration of the block.

    Safe because serving forwards never overlap `logprobs`/`train_step` (one engine thread).
    """
    configs = _configs(model)
    saved = [c._attn_implementation_internal for c in configs]
    for c in configs:
        c._attn_implementation_internal = NAME
    try:
        yield
    finally:
        for c, value in zip(configs, saved):
            c._attn_implementation_internal = value


def unsupported_reason(model: Any) -> str | None:
    """Why the slot attention cannot serve this model (then generation uses the static path)."""
    config = _configs(model)[-1]
    if getattr(config, "attn_logit_softcapping", None):
        return "attention logit soft-capping"
    layer_types = getattr(config, "layer_types", None) or ["full_attention"]
    other = sorted(set(layer_types) - {"full_attention", "sliding_attention"})
    if other:
        return f"layer types {other}"
    return None
