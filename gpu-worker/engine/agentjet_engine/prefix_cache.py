"""Prefix KV reuse: the keys/values of token prefixes already computed, kept in fixed-size blocks.

A block holds the KV of `block` consecutive tokens at fixed positions; it is keyed by (its
parent block, its tokens), so a lookup walks a prompt block by block from the root and every hit is
confirmed token by token (dict keys compare the token tuples; hashing only finds candidates).
Blocks live in one pool tensor per layer, `(blocks, kv_heads, block, head_dim)` for keys and for
values, grown by doubling up to a byte budget. When the pool is full the least recently used leaf
block (one no cached block extends) is evicted, so a cached path is always complete from the root.
Everything is dropped when the weights change (`clear`).

Exactness: a block's KV was computed for the same tokens at the same positions under the same
weights, so a sequence continued from reused blocks sees the same keys/values as one prefilled
from scratch, up to float rounding of differently shaped matmuls (tests: tests/test_prefix_cache.py).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

import torch
from torch import Tensor

from .kv_store import SlotStore

ROOT = -1


@dataclass
class _Block:
    parent: int
    tokens: tuple[int, ...]
    children: int = 0


@dataclass
class CacheStats:
    lookups: int = 0
    hits: int = 0  # lookups that reused at least one block
    reused_tokens: int = 0  # prompt tokens served from the cache
    prefilled_tokens: int = 0  # prompt tokens computed (counted by the scheduler)
    inserted_blocks: int = 0
    evictions: int = 0
    clears: int = 0
    extra: dict[str, int] = field(default_factory=dict)


class PrefixCache:
    def __init__(self, store: SlotStore, budget_bytes: int, block: int = 16) -> None:
        self.store = store
        self.block = block
        self.budget_bytes = max(0, budget_bytes)
        self.blocks: dict[int, _Block] = {}
        self.index: dict[tuple[int, tuple[int, ...]], int] = {}
        self.leaves: OrderedDict[int, None] = OrderedDict()  # LRU order, oldest first
        self.free: list[int] = []
        self.capacity = 0
        self.k: list[Tensor] = []
        self.v: list[Tensor] = []
        self.stats = CacheStats()

    # ---- sizes ---------------------------------------------------------------------------------
    @property
    def bytes_per_block(self) -> int:
        return self.store.bytes_per_token * self.block

    @property
    def max_blocks(self) -> int:
        return self.budget_bytes // max(1, self.bytes_per_block)

    @property
    def used_bytes(self) -> int:
        return len(self.blocks) * self.bytes_per_block

    @property
    def capacity_bytes(self) -> int:
        return self.capacity * self.bytes_per_block

    def to_json(self) -> dict[str, object]:
        s = self.stats
        looked = s.reused_tokens + s.prefilled_tokens
        return {
            "enabled": self.max_blocks > 0,
            "blockTokens": self.block,
            "blocks": len(self.blocks),
            "bytes": self.used_bytes,
            "capacityBytes": self.capacity_bytes,
            "budgetBytes": self.budget_bytes,
            "lookups": s.lookups,
            "hits": s.hits,
            "hitRate": s.hits / s.lookups if s.lookups else 0.0,
            "reusedTokens": s.reused_tokens,
            "prefilledTokens": s.prefilled_tokens,
            "tokenHitRate": s.reused_tokens / looked if looked else 0.0,
            "insertedBlocks": s.inserted_blocks,
            "evictions": s.evictions,
            "clears": s.clears,
        }

    # ---- lifecycle -----------------------------------------------------------------------------
    def clear(self) -> None:
        """Drops every block and frees the pool (weights changed)."""
        self.blocks.clear()
        self.index.clear()
        self.leaves.clear()
        self.free.clear()
        self.k, self.v = [], []
        self.capacity = 0
        self.stats.clears += 1

    def _grow(self) -> bool:
        limit = self.max_blocks
        if self.capacity >= limit:
            return False
        new = min(limit, max(64, self.capacity * 2))
        st = self.store
        shape = (new, st.kv_heads, self.block, st.head_dim)
        ks, vs = [], []
        for layer in range(st.layers):
            k = torch.empty(shape, dtype=st.dtype, device=st.device)
            v = torch.empty(shape, dtype=st.dtype, device=st.device)
            if self.capacity:
                k[: self.capacity] = self.k[layer]
                v[: self.capacity] = self.v[layer]
            ks.append(k)
            vs.append(v)
        self.k, self.v = ks, vs
        self.free.extend(range(new - 1, self.capacity - 1, -1))
        self.capacity = new
        return True

    def _evict_one(self) -> bool:
        if not self.leaves:
            return False
        victim, _ = self.leaves.popitem(last=False)
        block = self.blocks.pop(victim)
        del self.index[(block.parent, block.tokens)]
        self.free.append(victim)
        self.stats.evictions += 1
        if block.parent != ROOT:
            parent = self.blocks[block.parent]
            parent.children -= 1
            if parent.children == 0:
                self.leaves[block.parent] = None
                self.leaves.move_to_end(block.parent, last=False)
        return True

    def _allocate(self, protect: set[int]) -> int | None:
        if not self.free and not self._grow():
            # never evict a block of the path being extended
            kept = [b for b in self.leaves if b in protect]
            for b in kept:
                del self.leaves[b]
            ok = self._evict_one()
            for b in kept:
                self.leaves[b] = None
            if not ok:
                return None
        return self.free.pop()

    # ---- lookup / insert -------------------------------------------------------------------------
    def match(self, tokens: list[int], limit: int) -> list[int]:
        """Block ids of the longest cached prefix of tokens[:limit] (whole blocks), most recent use."""
        found: list[int] = []
        parent = ROOT
        bs = self.block
        for start in range(0, limit - bs + 1, bs):
            block_id = self.index.get((parent, tuple(tokens[start : start + bs])))
            if block_id is None:
                break
            found.append(block_id)
            parent = block_id
        if found and found[-1] in self.leaves:
            self.leaves.move_to_end(found[-1])
        return found

    def lookup(self, tokens: list[int], limit: int, slot: int) -> int:
        """Copies the longest cached prefix of tokens[:limit] into `slot`; returns its length."""
        self.stats.lookups += 1
        if self.max_blocks == 0:
            return 0
        ids = self.match(tokens, limit)
        if not ids:
            return 0
        self.stats.hits += 1
        index = torch.tensor(ids, device=self.store.device)
        n = len(ids) * self.block
        st = self.store
        for layer in range(st.layers):
            k = self.k[layer].index_select(0, index)  # (n_blocks, kv_heads, block, d)
            v = self.v[layer].index_select(0, index)
            st.k[layer][slot, :, :n] = k.permute(1, 0, 2, 3).reshape(st.kv_heads, n, st.head_dim)
            st.v[layer][slot, :, :n] = v.permute(1, 0, 2, 3).reshape(st.kv_heads, n, st.head_dim)
        self.stats.reused_tokens += n
        return n

    def insert(self, tokens: list[int], length: int, slot: int) -> None:
        """Caches the whole blocks of tokens[:length], whose KV is in `slot` (positions 0…length−1)."""
        if self.max_blocks == 0:
            return
        bs = self.block
        parent = ROOT
        path: set[int] = set()
        new_blocks: list[tuple[int, int]] = []  # (block id, start position)
        for start in range(0, length - bs + 1, bs):
            key = (parent, tuple(tokens[start : start + bs]))
            block_id = self.index.get(key)
            if block_id is None:
                block_id = self._allocate(path)
                if block_id is None:
                    break
                self.blocks[block_id] = _Block(parent, key[1])
                self.index[key] = block_id
                if parent != ROOT:
                    p = self.blocks[parent]
                    if p.children == 0:
                        self.leaves.pop(parent, None)
                    p.children += 1
                self.leaves[block_id] = None
                new_blocks.append((block_id, start))
            path.add(block_id)
            parent = block_id
        if parent in self.leaves:
            self.leaves.move_to_end(parent)
        if not new_blocks:
            return
        self.stats.inserted_blocks += len(new_blocks)
        self._copy_in(new_blocks, slot)

    def _copy_in(self, new_blocks: list[tuple[int, int]], slot: int) -> None:
        st = self.store
        ids = torch.tensor([b for b, _ in new_blocks], device=st.device)
        bs = self.block
        contiguous = all(new_blocks[i][1] == new_blocks[0][1] + i * bs for i in range(len(new_blocks)))
        for layer in range(st.layers):
            if contiguous:
                s0 = new_blocks[0][1]
                n = len(new_blocks) * bs
                k = st.k[layer][slot, :, s0 : s0 + n].reshape(st.kv_heads, len(new_blocks), bs, st.head_dim)
                v = st.v[layer][slot, :, s0 : s0 + n].reshape(st.kv_heads, len(new_blocks), bs, st.head_dim)
                self.k[layer][ids] = k.permute(1, 0, 2, 3)
                self.v[layer][ids] = v.permute(1, 0, 2, 3)
            else:
                for block_id, start in new_blocks:
                    self.k[layer][block_id] = st.k[layer][slot, :, start : start + bs]
                    self.v[layer][block_id] = st.v[layer][slot, :, start : start + bs]
