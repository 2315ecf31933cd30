"""On-policy distillation from a teacher's top-k, the engine's half (docs/learned-rewards.md): a
sample's `teacherTop` (the teacher's k most likely tokens and logprobs at each token's position, from
the teacher's `logprobs` with `topK`) and the per-token term `train_step` adds with `distillCoef`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch
from torch import Tensor

from . import params as P
from .errors import invalid
from .scoring import MAX_TOP_K, Targets

if TYPE_CHECKING:
    from .training import Sample


@dataclass
class TeacherTop:
    """A teacher's k most likely tokens and their logprobs at each token's position (read where masked)."""

    ids: list[list[int]]
    logprobs: list[list[float]]
    k: int


def parse_teacher_top(raw: Any, field: str, mask: list[int], vocab_size: int) -> TeacherTop:
    """`{ids: int[][], logprobs: float[][]}`, one row per token; every masked row holds the same k ≥ 1
    entries (ids in the vocabulary, finite logprobs ≤ 0); unmasked rows are not read."""
    t = P.obj(raw, field)
    ids, logprobs = t.get("ids"), t.get("logprobs")
    for key, rows in (("ids", ids), ("logprobs", logprobs)):
        if not isinstance(rows, list) or len(rows) != len(mask):
            raise invalid(f"{field}.{key}", f"must be an array of {len(mask)} rows (one per token)")
    k = 0
    out_ids: list[list[int]] = [[] for _ in mask]
    out_lp: list[list[float]] = [[] for _ in mask]
    for i, m in enumerate(mask):
        if not m:
            continue
        k = k or (len(ids[i]) if isinstance(ids[i], list) else 0)
        if k < 1 or k > MAX_TOP_K:
            raise invalid(f"{field}.ids[{i}]", f"must hold 1..{MAX_TOP_K} token ids", "out_of_range")
        out_ids[i] = P.token_ids(ids[i], f"{field}.ids[{i}]", vocab_size, min_len=k)
        if len(out_ids[i]) != k:
            raise invalid(f"{field}.ids[{i}]", f"must hold {k} token ids, as every masked row does", "out_of_range")
        out_lp[i] = P.float_list(logprobs[i], f"{field}.logprobs[{i}]", k, finite_where=[1] * k)
        if max(out_lp[i]) > 1e-4:
            raise invalid(f"{field}.logprobs[{i}]", "must be log-probabilities (<= 0)", "out_of_range")
    return TeacherTop(out_ids, out_lp, k)


def teacher_top_at(chunk: list[Sample], targets: Targets, device: torch.device) -> tuple[Tensor, Tensor]:
    """(ids (N, K), teacher logprobs (N, K)) of the chunk's teacher top-k at each target; a sample
    without one (an FSDP rank's zero-weight idle sample) gets token 0 at uniform odds, never trained."""
    k = max((s.teacher_top.k for s in chunk if s.teacher_top is not None), default=1)
    ids, lps = [], []
    for r, c in zip(targets.rows.tolist(), targets.cols.tolist()):
        top = chunk[r].teacher_top
        ids.append(top.ids[c] if top is not None else [0] * k)
        lps.append(top.logprobs[c] if top is not None else [0.0] * k)
    return torch.tensor(ids, dtype=torch.long, device=device), torch.tensor(lps, dtype=torch.float32, device=device)


def top_k_kl(student: Tensor, teacher: Tensor) -> Tensor:
    """(N,) Σ_k q_k·(log q_k − log p_k): q the teacher's logprobs (N, K) renormalised over its K
    tokens, p the student's full-vocabulary probabilities of the same tokens (N, K). It is ≥ 0 and
    0 exactly when the student puts q's mass on the K tokens and nothing elsewhere, so its gradient
    both reshapes the student within the set and moves mass onto it (forward KL on the teacher's
    top-k, the usual truncation of logit distillation)."""
    q = torch.log_softmax(teacher, -1)
    return (q.exp() * (q - student)).sum(-1)
