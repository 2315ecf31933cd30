"""The serving KV store: one slot per active sequence, per layer, in two tensors (keys, values).

Layout per layer: `(rows, kv_heads, tokens, head_dim)` in the compute dtype, keys and values apart.
Slots are kept in the order [decoding rows | prefilling rows | free], contiguous, so a decode
step's keys are the view `k[:D, :, :T]` (no gather, no copy to the query heads: attention folds the
query heads onto the kv heads, see `attention.py`). A row that leaves is replaced by the last row
of its range (one copy of that row's tokens), a row that finishes its prefill swaps into the first
prefilling slot. Capacity grows by doubling (rows) and in 256-token steps (tokens) with one copy.

`SlotCache` is the transformers `Cache` the model forward writes into: `update` scatters the
step's new keys/values to their slots (decode rows at their own positions, prefill chunks as
ranges) as described by the step's `StepPlan`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch
from torch import Tensor
from transformers.cache_utils import Cache, CacheLayerMixin

TOKEN_STEP = 256


@dataclass
class Segment:
    """A prefill chunk of one row: `count` tokens at positions `start…start+count` of slot `slot`,
    at `offset…offset+count` in the step's flat token list."""

    slot: int
    start: int
    count: int
    offset: int


@dataclass
class StepPlan:
    """What one forward computes: `decode` rows 0…D−1 (token i of the flat list is slot i's next
    token, written at `decode_lens[i]`), then the prefill `segments`. Masks are built lazily and
    shared by every layer of the step."""

    store: SlotStore
    decode: int
    decode_lens: Tensor | None  # (D,) long: write position (= tokens already cached)
    decode_kv: int  # keys each decode row may see: max(decode_lens) + 1
    segments: list[Segment]
    _masks: dict[Any, Tensor] = field(default_factory=dict)

    def decode_mask(self, window: int | None) -> Tensor:
        """(D, 1, 1, T) bool: key j visible to row i iff j ≤ lens[i] (and within the window)."""
        key = ("decode", window)
        mask = self._masks.get(key)
        if mask is None:
            assert self.decode_lens is not None
            keys = torch.arange(self.decode_kv, device=self.decode_lens.device)
            lens = self.decode_lens.unsqueeze(1)
            mask = keys.unsqueeze(0) <= lens
            if window is not None:
                mask &= keys.unsqueeze(0) > lens - window
            mask = mask[:, None, None, :]
            self._masks[key] = mask
        return mask

    def segment_mask(self, index: int, window: int | None, device: torch.device) -> Tensor | None:
        """(1, 1, c, start + c) bool causal mask with the offset, or None for a fresh causal chunk."""
        seg = self.segments[index]
        if seg.start == 0 and window is None:
            return None
        key = ("segment", index, window)
        mask = self._masks.get(key)
        if mask is None:
            queries = torch.arange(seg.count, device=device).unsqueeze(1) + seg.start
            keys = torch.arange(seg.start + seg.count, device=device).unsqueeze(0)
            mask = keys <= queries
            if window is not None:
                mask &= keys > queries - window
            mask = mask[None, None]
            self._masks[key] = mask
        return mask


class SlotStore:
    """Per-layer key/value tensors with row slots; see the module docstring."""

    def __init__(self, layers: int, kv_heads: int, head_dim: int, dtype: torch.dtype, device: torch.device) -> None:
        self.layers, self.kv_heads, self.head_dim = layers, kv_heads, head_dim
        self.dtype, self.device = dtype, device
        self.rows = 0  # row capacity
        self.tokens = 0  # token capacity per row
        self.k: list[Tensor] = []
        self.v: list[Tensor] = []

    @property
    def bytes_per_token(self) -> int:
        return 2 * self.layers * self.kv_heads * self.head_dim * torch.tensor([], dtype=self.dtype).element_size()

    @property
    def bytes(self) -> int:
        return self.rows * self.tokens * self.bytes_per_token

    def ensure(
        self,
        rows: int,
        tokens: int,
        used_rows: int,
        used_tokens: int,
        row_limit: int | None = None,
        token_limit: int | None = None,
    ) -> None:
        """Grow to hold `rows` rows of `tokens` tokens, keeping the first `used_rows` × `used_tokens`.

        Rows double and tokens grow by half (amortised copies), but never past `row_limit` rows or
        `token_limit` tokens unless `rows`/`tokens` themselves need it.
        """
        if rows <= self.rows and tokens <= self.tokens:
            return
        new_rows = max(self.rows, 1)
        while new_rows < rows:
            new_rows *= 2
        if row_limit is not None:
            new_rows = max(rows, min(new_rows, row_limit))
        new_tokens = self.tokens
        if tokens > self.tokens:
            new_tokens = max(
                -(-tokens // TOKEN_STEP) * TOKEN_STEP, -(-(self.tokens * 3 // 2) // TOKEN_STEP) * TOKEN_STEP
            )
            if token_limit is not None:
                new_tokens = max(tokens, min(new_tokens, token_limit))
        shape = (new_rows, self.kv_heads, new_tokens, self.head_dim)
        ks, vs = [], []
        for layer in range(self.layers):
            # zeros, not empty: masked positions are still multiplied by their (zero) attention weight,
            # and uninitialised memory may hold NaN/Inf, which would turn that product into NaN
            k = torch.zeros(shape, dtype=self.dtype, device=self.device)
            v = torch.zeros(shape, dtype=self.dtype, device=self.device)
            if used_rows and used_tokens and self.k:
                k[:used_rows, :, :used_tokens] = self.k[layer][:used_rows, :, :used_tokens]
                v[:used_rows, :, :used_tokens] = self.v[layer][:used_rows, :, :used_tokens]
            ks.append(k)
            vs.append(v)
        self.k, self.v = ks, vs
        self.rows, self.tokens = new_rows, new_tokens

    def release(self) -> None:
        """Frees the tensors (when nothing is active)."""
        self.k, self.v = [], []
        self.rows = self.tokens = 0

    def move(self, src: int, dst: int, length: int) -> None:
        """Copies slot `src`'s first `length` tokens to slot `dst`."""
        if src == dst or length == 0:
            return
        for layer in range(self.layers):
            self.k[layer][dst, :, :length] = self.k[layer][src, :, :length]
            self.v[layer][dst, :, :length] = self.v[layer][src, :, :length]

    def swap(self, a: int, len_a: int, b: int, len_b: int) -> None:
        if a == b:
            return
        for layer in range(self.layers):
            for t in (self.k[layer], self.v[layer]):
                tmp = t[a, :, :len_a].clone()
                t[a, :, :len_b] = t[b, :, :len_b]
                t[b, :, :len_a] = tmp

    def read(self, slot: int, start: int, end: int) -> list[tuple[Tensor, Tensor]]:
        """Per layer, views of slot `slot`'s keys and values at positions start…end−1: (kv_heads, n, d)."""
        return [(self.k[layer][slot, :, start:end], self.v[layer][slot, :, start:end]) for layer in range(self.layers)]

    def write(self, slot: int, start: int, kv: list[tuple[Tensor, Tensor]]) -> None:
        """Writes per-layer (kv_heads, n, d) keys/values at positions start…start+n−1 of a slot."""
        for layer, (k, v) in enumerate(kv):
            n = k.shape[1]
            self.k[layer][slot, :, start : start + n] = k
            self.v[layer][slot, :, start : start + n] = v


class _SlotLayer(CacheLayerMixin):
    """One layer of the slot cache: writes the step's new keys/values into the store."""

    is_compileable = False
    is_sliding = False

    def __init__(self, cache: SlotCache, layer: int) -> None:
        super().__init__()
        self.cache, self.layer = cache, layer
        self.is_initialized = True

    def lazy_initialization(self, key_states: Tensor, value_states: Tensor) -> None:  # noqa: D102
        pass

    def update(self, key_states: Tensor, value_states: Tensor, *args: Any, **kwargs: Any) -> tuple[Tensor, Tensor]:
        plan = self.cache.plan
        store = plan.store
        k_all, v_all = store.k[self.layer], store.v[self.layer]
        k, v = key_states[0], value_states[0]  # (kv_heads, N, d)
        if plan.decode:
            assert plan.decode_lens is not None
            rows = torch.arange(plan.decode, device=k.device)
            k_all[rows, :, plan.decode_lens] = k[:, : plan.decode].transpose(0, 1).to(k_all.dtype)
            v_all[rows, :, plan.decode_lens] = v[:, : plan.decode].transpose(0, 1).to(v_all.dtype)
        for seg in plan.segments:
            k_all[seg.slot, :, seg.start : seg.start + seg.count] = k[:, seg.offset : seg.offset + seg.count]
            v_all[seg.slot, :, seg.start : seg.start + seg.count] = v[:, seg.offset : seg.offset + seg.count]
        return key_states, value_states  # attention reads the store through the plan

    def get_mask_sizes(self, query_length: int) -> tuple[int, int]:
        return query_length, 0

    def get_seq_length(self) -> int:
        return 0

    def get_max_length(self) -> int:
        return -1


class SlotCache(Cache):
    """The transformers Cache of a serving forward: every layer writes into the SlotStore by `plan`."""

    def __init__(self, layers: int) -> None:
        self.plan: StepPlan | None = None  # type: ignore[assignment]
        super().__init__(layers=[_SlotLayer(self, i) for i in range(layers)])
