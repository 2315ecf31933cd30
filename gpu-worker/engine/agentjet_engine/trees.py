"""Tree-packed sequences: validation of `parents`/`positions`, the tree attention mask, and model inputs.

A tree sample is a prefix tree of token sequences flattened in DFS pre-order: `parents[i]` is the
index of token i's parent (-1 for the root, index 0 only), `positions[i]` its depth. Token i
attends to its ancestors and itself — j is an ancestor-or-self of i iff `j <= i < end[j]`, where
`end[j]` is one past the last token of j's subtree — and its logprob is read from the logits at
`parents[i]` (a linear sequence is the special case `parents[i] = i - 1`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import Tensor

from . import params as P
from .batching import pad_right
from .errors import invalid
from .tree_attention import TreePlan, make_plan


@dataclass
class TokenSeq:
    """One sequence to run through the model: linear when `parents` is None, else a packed tree."""

    ids: list[int]
    parents: list[int] | None = None
    positions: list[int] | None = None  # depths; derived from `parents` when a tree omits them

    @property
    def depth(self) -> int:
        """Tokens on the longest root-to-leaf path: what must fit the model's context."""
        return len(self.ids) if self.positions is None else max(self.positions, default=-1) + 1


def check_parents(value: Any, field: str, length: int) -> list[int]:
    """`parents` of a tree in DFS pre-order: parents[0] = -1, and each later token's parent is on
    the root path of the token before it (so 0 <= parents[i] < i)."""
    if not isinstance(value, list):
        raise invalid(field, f"must be an array of parent indices, got {P.kind_of(value)}", "wrong_type")
    if len(value) != length:
        raise invalid(field, f"must have {length} elements (one per token), got {len(value)}", "out_of_range")
    if length == 0:
        return []
    path: list[int] = []
    for i, p in enumerate(value):
        if isinstance(p, bool) or not isinstance(p, int):
            raise invalid(f"{field}[{i}]", f"must be an integer token index, got {P.kind_of(p)}", "wrong_type")
        if i == 0:
            if p != -1:
                raise invalid(f"{field}[0]", f"must be -1 (the first token is the root), got {p}", "not_a_tree")
            path.append(0)
            continue
        if not 0 <= p < i:
            raise invalid(
                f"{field}[{i}]", f"must be the index of an earlier token (0 <= parent < {i}), got {p}", "not_a_tree"
            )
        while path and path[-1] != p:
            path.pop()
        if not path:
            raise invalid(
                f"{field}[{i}]",
                f"parent {p} is not an ancestor-or-self of token {i - 1}; tokens must be listed in DFS pre-order",
                "not_a_tree",
            )
        path.append(i)
    return value


def depths(parents: Sequence[int]) -> list[int]:
    """Depth of each token (its position id); `parents` must already be checked."""
    out: list[int] = []
    for p in parents:
        out.append(0 if p < 0 else out[p] + 1)
    return out


def check_positions(value: Any, field: str, parents: list[int]) -> list[int]:
    """`positions` must be each token's depth (the position id it had in its unpacked sequence)."""
    expected = depths(parents)
    if value is None:
        return expected
    if not isinstance(value, list):
        raise invalid(field, f"must be an array of depths, got {P.kind_of(value)}", "wrong_type")
    if len(value) != len(parents):
        raise invalid(field, f"must have {len(parents)} elements (one per token), got {len(value)}", "out_of_range")
    for i, (got, want) in enumerate(zip(value, expected)):
        if isinstance(got, bool) or not isinstance(got, int) or got != want:
            raise invalid(f"{field}[{i}]", f"must be the token's depth {want}, got {got!r}", "out_of_range")
    return expected


def parse_token_seq(s: dict[str, Any], field: str, ids: list[int]) -> TokenSeq:
    """The optional tree fields of a sequence or sample object whose `tokenIds` are `ids`."""
    raw_parents, raw_positions = s.get("parents"), s.get("positions")
    if raw_parents is None:
        if raw_positions is not None:
            raise invalid(f"{field}.positions", "is only accepted together with parents (a tree-packed sample)")
        return TokenSeq(ids)
    parents = check_parents(raw_parents, f"{field}.parents", len(ids))
    return TokenSeq(ids, parents, check_positions(raw_positions, f"{field}.positions", parents))


def subtree_ends(parents: Sequence[int]) -> list[int]:
    """end[j] = one past the last token of j's subtree (DFS pre-order)."""
    end = list(range(1, len(parents) + 1))
    for i in range(len(parents) - 1, 0, -1):
        p = parents[i]
        if p >= 0 and end[i] > end[p]:
            end[p] = end[i]
    return end


@dataclass
class ModelInput:
    """A right-padded micro-batch ready for the model.

    With only linear rows `mask` and `plan` are None (plain causal attention; see `make_input`).
    When a row is a tree, either `plan` holds the segment plan of every row (`tree_attention.py`:
    the exact block-sparse path, no T×T mask) or `mask` is the dense reference: a (B, 1, T, T)
    additive float mask (0 = attend, dtype-min = blocked) for all rows — linear rows causal, tree
    rows ancestor-or-self, each padding query attending only to itself (so no softmax row is empty)
    — which transformers passes through to the attention (sdpa / eager) as-is. `parents` is None
    for linear-only batches.
    """

    ids: Tensor
    mask: Tensor | None
    position_ids: Tensor
    parents: Tensor | None  # (B, T) index each token is predicted from; -1 at roots and padding
    plan: TreePlan | None = None
    real: Tensor = field(default_factory=lambda: torch.zeros(0, dtype=torch.bool))  # (B, T): not padding

    @property
    def attention_mask(self) -> Any:
        """What the model's `attention_mask` argument gets: None, the dense mask, or the plan mapping."""
        if self.plan is not None:
            return {"full_attention": self.plan}
        return self.mask

    def mask_for(self, model: Any) -> Any:
        """`attention_mask` for `model`: a model with sliding-window layers (Gemma 3, gpt-oss) gets the
        dense mask per layer type, the sliding layers' with the window applied — a precomputed 4D mask
        is used as is, so the window would otherwise be dropped. The distance is that of the positions:
        a tree token's ancestors are at its depth minus theirs. (The segment plan is refused for such
        models at load, `scoring.tree_segments_match`: its mapping has no sliding entry.)"""
        if self.mask is None or self.plan is not None:
            return self.attention_mask
        base = model.get_base_model() if hasattr(model, "get_base_model") else model
        config = base.config.get_text_config() if hasattr(base.config, "get_text_config") else base.config
        window = getattr(config, "sliding_window", None)
        types = set(getattr(config, "layer_types", None) or [])
        if not window or "sliding_attention" not in types:
            return self.mask
        far = (self.position_ids[:, :, None] - self.position_ids[:, None, :]) >= int(window)
        windowed = self.mask.masked_fill(far.unsqueeze(1), torch.finfo(self.mask.dtype).min)
        return {t: windowed if t == "sliding_attention" else self.mask for t in types}

    def to(self, device: torch.device) -> ModelInput:
        return ModelInput(
            self.ids.to(device),
            None if self.mask is None else self.mask.to(device),
            self.position_ids.to(device),
            None if self.parents is None else self.parents.to(device),
            None if self.plan is None else self.plan.to(device),
            self.real.to(device),
        )


TREE_ATTENTION = ("segments", "dense")


def make_input(
    seqs: Sequence[TokenSeq],
    pad_id: int,
    mask_dtype: torch.dtype = torch.float32,
    device: torch.device | None = None,
    tree_attention: str = "segments",
) -> ModelInput:
    """Pad a micro-batch of linear and/or tree sequences onto `device` (the CPU by default).

    `tree_attention` picks how a micro-batch holding a tree attends: "segments" (exact, skips the
    empty blocks) or "dense" (the reference (B, 1, T, T) mask, built on `device` from per-token
    subtree ends so only O(B·T) data is copied).
    """
    if tree_attention not in TREE_ATTENTION:
        raise ValueError(f"tree_attention must be one of {TREE_ATTENTION}, got {tree_attention!r}")
    device = device or torch.device("cpu")
    ids, real = pad_right([s.ids for s in seqs], pad_id)
    real = real.bool()
    batch, width = ids.shape
    if all(s.parents is None for s in seqs):
        # Right padding needs no mask under causal attention: a real token never looks ahead, so it
        # sees exactly its own sequence; padding outputs are never read. Positions run on through
        # the padding (so transformers sees no packed sequences) and sdpa takes its causal fast path.
        return ModelInput(ids, None, torch.arange(width).expand(batch, width), None, None, real).to(device)
    positions = torch.zeros((batch, width), dtype=torch.long)
    parents = torch.full((batch, width), -1, dtype=torch.long)
    for row, s in enumerate(seqs):
        n = len(s.ids)
        if s.parents is None:
            positions[row, :n] = torch.arange(n)
            parents[row, :n] = torch.arange(-1, n - 1)
        else:
            positions[row, :n] = torch.tensor(s.positions if s.positions is not None else depths(s.parents))
            parents[row, :n] = torch.tensor(s.parents)
    if tree_attention == "segments":
        plan = make_plan([(s.parents, len(s.ids)) for s in seqs], width)
        return ModelInput(ids, None, positions, parents, plan, real).to(device)
    return ModelInput(
        ids.to(device),
        dense_tree_mask(seqs, width, mask_dtype, device),
        positions.to(device),
        parents.to(device),
        None,
        real.to(device),
    )


def dense_tree_mask(seqs: Sequence[TokenSeq], width: int, mask_dtype: torch.dtype, device: torch.device) -> Tensor:
    """(B, 1, T, T) additive mask: key j visible to query i iff j is an ancestor-or-self of i."""
    batch = len(seqs)
    ends = torch.arange(1, width + 1, dtype=torch.long).repeat(batch, 1)  # padding: own subtree only
    for row, s in enumerate(seqs):
        n = len(s.ids)
        ends[row, :n] = n if s.parents is None else torch.tensor(subtree_ends(s.parents))
    index = torch.arange(width, device=device)
    query, key = index.view(1, width, 1), index.view(1, 1, width)
    allowed = (key <= query) & (query < ends.to(device).unsqueeze(1))  # (B, T, T)
    bias = torch.zeros((batch, width, width), dtype=mask_dtype, device=device)
    bias.masked_fill_(~allowed, torch.finfo(mask_dtype).min)
    return bias.unsqueeze(1)


def parent_logprobs(logits: Tensor, ids: Tensor, parents: Tensor) -> Tensor:
    """(B, T) with [:, i] = log softmax(logits[:, parents[i]])[ids[:, i]] in fp32, 0 where parents is -1."""
    has_parent = parents >= 0
    source = parents.clamp(min=0)
    rows = torch.arange(ids.shape[0], device=ids.device).unsqueeze(1).expand_as(ids)
    picked = logits[rows, source, ids].float()
    normaliser = torch.logsumexp(logits.float(), dim=-1).gather(1, source)
    return torch.where(has_parent, picked - normaliser, torch.zeros_like(picked))


def at_parents(values: Tensor, parents: Tensor) -> Tensor:
    """(B, T) per-position values (e.g. entropy) read at each token's parent (0 at roots/padding)."""
    return torch.where(parents >= 0, values.gather(1, parents.clamp(min=0)), torch.zeros_like(values))
