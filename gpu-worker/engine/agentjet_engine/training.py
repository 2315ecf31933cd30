"""The policy-gradient step: PPO-clip over masked tokens, micro-batched with gradient accumulation.

Samples are linear sequences or tree-packed ones (`parents`, `positions`; see `trees.py`), and may
carry per-token loss `weights` (a tree token standing for several unmerged occurrences): the
step's loss is Σ w·loss / Σ w over the masked tokens of the whole step (w = 1 when absent).

On-policy distillation from a teacher's top-k (`distillCoef` > 0, every sample carrying `teacherTop`)
adds, on each masked token, the KL from the teacher's top-k distribution (renormalised over its k
tokens) to the student's on the same k tokens: Σ_k q_k·(log q_k − log π_student(k)), weighted like
the policy-gradient term and scaled by `distillCoef`. The student's logprobs of the k tokens come
from the same forward pass and chunked head as the sampled token's.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from . import params as P
from .batching import pack_by_token_budget
from .corrections import MODES, Correction, corrected_loss
from .distill import TeacherTop, parse_teacher_top, teacher_top_at, top_k_kl
from .errors import EngineError, context_overflow, invalid
from .losses import entropy_from_logits, k3_kl
from .scoring import PolicyScorer, Targets, forward_input, input_logprobs, score_targets, select_targets
from .trees import TREE_ATTENTION, ModelInput, TokenSeq, at_parents, make_input, parse_token_seq


@dataclass
class Hyper:
    lr: float
    clip_low: float = 0.2
    clip_high: float = 0.2
    kl_coef: float = 0.0
    max_grad_norm: float = 1.0  # ≤ 0 disables clipping (the norm is still reported)
    micro_batch_tokens: int = 4096
    dry_run: bool = False  # loss + gradient norm only: no optimizer step, no version bump
    tree_attention: str = "auto"  # "auto" (segments where the model takes them) | "segments" | "dense"
    chunked_logprobs: bool = True  # False: the full-logits reference path (for comparisons)
    activation_checkpointing: bool | None = None  # None: the load-time choice
    correction: Correction = Correction()  # off-policy correction (corrections.py)
    distill_coef: float = 0.0  # weight of the teacher-top-k KL term (needs every sample's teacherTop)


@dataclass
class Sample:
    token_ids: list[int]
    loss_mask: list[int]
    advantages: list[float]  # per token (a scalar advantage is broadcast)
    rollout_logprobs: list[float]  # only positions with loss_mask 1 are read
    parents: list[int] | None = None  # tree-packed: parent index per token (-1 at the root)
    positions: list[int] | None = None  # tree-packed: depth per token
    weights: list[float] | None = None  # per-token loss weight (1 when None); read where masked
    teacher_top: TeacherTop | None = None  # a distillation teacher's top-k at each masked token

    def seq(self) -> TokenSeq:
        return TokenSeq(self.token_ids, self.parents, self.positions)

    def loss_weights(self) -> list[float]:
        if self.weights is None:
            return [float(m) for m in self.loss_mask]
        return [w if m else 0.0 for w, m in zip(self.weights, self.loss_mask)]


def parse_hyper(raw: Any) -> Hyper:
    h = P.obj(raw, "hyper")
    return Hyper(
        lr=P.get_float(h, "lr", "hyper", lo=0.0),
        clip_low=P.get_float(h, "clipLow", "hyper", default=0.2, lo=0.0, hi=1.0),
        clip_high=P.get_float(h, "clipHigh", "hyper", default=0.2, lo=0.0),
        kl_coef=P.get_float(h, "klCoef", "hyper", default=0.0, lo=0.0),
        max_grad_norm=P.get_float(h, "maxGradNorm", "hyper", default=1.0),
        micro_batch_tokens=P.get_int(h, "microBatchTokens", "hyper", default=4096, lo=1),
        dry_run=P.get_bool(h, "dryRun", "hyper", default=False),
        tree_attention=P.get_str(h, "treeAttention", "hyper", default="auto", choices=("auto", *TREE_ATTENTION)),
        chunked_logprobs=P.get_bool(h, "chunkedLogprobs", "hyper", default=True),
        activation_checkpointing=P.get_bool(h, "activationCheckpointing", "hyper", default=None),
        correction=Correction(
            mode=P.get_str(h, "correction", "hyper", default="none", choices=MODES),
            cap=P.get_float(h, "correctionCap", "hyper", default=2.0, lo=1.0),
            low=P.get_float(h, "correctionLow", "hyper", default=0.5, lo=0.0, hi=1.0),
            high=P.get_float(h, "correctionHigh", "hyper", default=2.0, lo=1.0),
        ),
        distill_coef=P.get_float(h, "distillCoef", "hyper", default=0.0, lo=0.0),
    )


def parse_sample(raw: Any, field: str, vocab_size: int, context: int) -> Sample:
    s = P.obj(raw, field)
    ids = P.token_ids(s.get("tokenIds"), f"{field}.tokenIds", vocab_size, min_len=2)
    seq = parse_token_seq(s, field, ids)
    if seq.depth > context:
        raise context_overflow(f"{field}.tokenIds", seq.depth, context)
    mask = s.get("lossMask")
    if not isinstance(mask, list) or len(mask) != len(ids):
        raise invalid(f"{field}.lossMask", f"must be an array of {len(ids)} zeros/ones (one per token)")
    for i, m in enumerate(mask):
        if m not in (0, 1) or isinstance(m, bool):
            raise invalid(f"{field}.lossMask[{i}]", f"must be 0 or 1, got {m!r}", "out_of_range")
    if mask[0] != 0:
        raise invalid(f"{field}.lossMask[0]", "must be 0 (the first token has no prediction)", "out_of_range")
    adv = s.get("advantages")
    if isinstance(adv, (int, float)) and not isinstance(adv, bool):
        advantages = [P.as_float(adv, f"{field}.advantages")] * len(ids)
    else:
        advantages = P.float_list(adv, f"{field}.advantages", len(ids), finite_where=mask)
    rollout = P.float_list(s.get("rolloutLogprobs"), f"{field}.rolloutLogprobs", len(ids), finite_where=mask)
    weights = None
    if s.get("weights") is not None:
        weights = P.float_list(s.get("weights"), f"{field}.weights", len(ids), finite_where=mask)
        for i, (w, m) in enumerate(zip(weights, mask)):
            if m and w < 0:
                raise invalid(f"{field}.weights[{i}]", f"must be >= 0, got {w}", "out_of_range")
    top = (
        None
        if s.get("teacherTop") is None
        else parse_teacher_top(s["teacherTop"], f"{field}.teacherTop", mask, vocab_size)
    )
    return Sample(ids, list(mask), advantages, rollout, seq.parents, seq.positions, weights, top)


def parse_step(params: dict[str, Any], vocab_size: int, context: int) -> tuple[list[Sample], Hyper]:
    """A `train_step`'s samples and hyper-parameters, checked together (distillation needs every
    sample's `teacherTop`)."""
    samples = parse_samples(params.get("samples"), vocab_size, context)
    hyper = parse_hyper(params.get("hyper"))
    if hyper.distill_coef > 0:
        missing = [i for i, s in enumerate(samples) if s.teacher_top is None and any(s.loss_mask)]
        if missing:
            raise invalid(
                f"samples[{missing[0]}].teacherTop", "is required when hyper.distillCoef > 0 (the teacher's top-k)"
            )
        ks = {s.teacher_top.k for s in samples if s.teacher_top is not None and s.teacher_top.k > 0}
        if len(ks) > 1:
            raise invalid("samples", f"every teacherTop must hold the same k per token, got {sorted(ks)}")
    return samples, hyper


def parse_samples(raw: Any, vocab_size: int, context: int) -> list[Sample]:
    if not isinstance(raw, list) or not raw:
        raise invalid("samples", "must be a non-empty array of samples")
    samples = [parse_sample(s, f"samples[{i}]", vocab_size, context) for i, s in enumerate(raw)]
    if not any(any(s.loss_mask) for s in samples):
        raise invalid("samples", "no token has lossMask 1, so there is nothing to train", "empty_loss_mask")
    if loss_weight(samples) <= 0:
        raise invalid("samples", "every masked token has weight 0, so there is nothing to train", "empty_loss_mask")
    return samples


def loss_weight(samples: list[Sample]) -> float:
    """The token-mean's denominator: Σ weights over masked tokens (the masked-token count without weights)."""
    return math.fsum(w for s in samples for w in s.loss_weights())


def _padded(rows: list[list[float]], width: int, device: torch.device) -> Tensor:
    out = torch.zeros((len(rows), width), dtype=torch.float32)
    for i, r in enumerate(rows):
        out[i, : len(r)] = torch.tensor(r, dtype=torch.float32)
    return out.to(device)


# micro-batch + its scored tokens → reference logprob of each scored token (N,)
ReferenceFn = Callable[[ModelInput, Targets], Tensor]


@dataclass
class StepContext:
    """How a step runs its micro-batches (fixed for the step; see `accumulate_gradients`)."""

    pad_id: int
    device: torch.device
    autocast: Callable[[], contextlib.AbstractContextManager[Any]]
    mask_dtype: torch.dtype = torch.float32
    tree_attention: str = "segments"  # "segments" (exact, block-sparse) or "dense" (the reference mask)
    chunked: bool = True  # logprobs from hidden states in chunks (False: full-logits reference)
    reference: ReferenceFn | None = None


def micro_batches(samples: list[Sample], budget: int) -> list[list[int]]:
    return pack_by_token_budget([len(s.token_ids) for s in samples], budget)


def _score(
    scorer: Any, inp: ModelInput, targets: Targets, ctx: StepContext, extra: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """(logp, entropy) at the targets; entropy detached. The reference path builds full logits.
    With `extra` (N, K) tokens per target, logp is (N, 1 + K), the target's column first."""
    if ctx.chunked:
        return score_targets(scorer, inp, targets, ctx.autocast(), extra=extra)
    model = scorer.lm if isinstance(scorer, PolicyScorer) else scorer
    logits = forward_input(model, inp, ctx.autocast())
    logp = input_logprobs(logits, inp)[targets.rows, targets.cols]
    if extra is not None:
        picked = torch.log_softmax(logits[targets.rows, targets.source].float(), -1)
        logp = torch.cat([logp.unsqueeze(1), picked.gather(1, extra)], 1)
    with torch.no_grad():
        entropy = _predicting_entropy(logits.detach(), inp)[targets.rows, targets.cols]
    return logp, entropy


def run_micro_batch(scorer: Any, chunk: list[Sample], hyper: Hyper, total: float, ctx: StepContext) -> dict[str, float]:
    """Forward/backward one micro-batch; its loss is its weighted masked *sum* over the step's total
    weight, so accumulating every micro-batch reproduces the full-batch gradient exactly."""
    inp = make_input([s.seq() for s in chunk], ctx.pad_id, ctx.mask_dtype, ctx.device, ctx.tree_attention)
    width = inp.ids.shape[1]
    targets = select_targets(inp, _padded([s.loss_mask for s in chunk], width, ctx.device).bool())

    def at(rows: list[list[float]]) -> Tensor:
        return _padded(rows, width, ctx.device)[targets.rows, targets.cols]

    weight, adv = at([s.loss_weights() for s in chunk]), at([s.advantages for s in chunk])
    rollout = at([s.rollout_logprobs for s in chunk])
    everywhere = torch.ones_like(weight, dtype=torch.bool)

    distill = hyper.distill_coef > 0 and len(targets) > 0
    top_ids, top_lp = teacher_top_at(chunk, targets, ctx.device) if distill else (None, None)
    logp, entropy = _score(scorer, inp, targets, ctx, top_ids)
    student_top = None
    if top_ids is not None:
        logp, student_top = logp[:, 0], logp[:, 1:]
    pg, clipped, hit = corrected_loss(logp, rollout, adv, everywhere, hyper.clip_low, hyper.clip_high, hyper.correction)
    loss = (pg * weight).sum() / total
    sums = {"pg": 0.0, "kl": 0.0, "clipped": 0.0, "approx_kl": 0.0, "entropy": 0.0, "corrected": 0.0, "distill": 0.0}
    if student_top is not None and top_lp is not None:
        distill_kl = top_k_kl(student_top, top_lp)
        loss = loss + hyper.distill_coef * (distill_kl * weight).sum() / total
        sums["distill"] = float((distill_kl.detach() * weight).sum())
    if ctx.reference is not None and hyper.kl_coef > 0:
        with torch.no_grad():
            ref_logp = ctx.reference(inp, targets)
        kl = k3_kl(logp, ref_logp)
        loss = loss + hyper.kl_coef * (kl * weight).sum() / total
        sums["kl"] = float((kl.detach() * weight).sum())
    loss.backward()
    with torch.no_grad():
        log_ratio = logp.detach() - rollout
        sums["pg"] = float((pg.detach() * weight).sum())
        sums["clipped"] = float((clipped.float() * weight).sum())
        sums["corrected"] = float((hit.float() * weight).sum())
        sums["approx_kl"] = float(((torch.expm1(log_ratio) - log_ratio) * weight).sum())
        sums["entropy"] = float((entropy * weight).sum())
    return sums


def accumulate_gradients(
    scorer: Any,
    samples: list[Sample],
    hyper: Hyper,
    ctx: StepContext,
    batches: list[list[int]] | None = None,
    total: float | None = None,
) -> dict[str, float]:
    """Forward/backward the micro-batches (default: all of the step's), leaving their gradient in
    `.grad`; returns stat sums. `total` is the step's loss weight (all samples, on every rank)."""
    total = loss_weight(samples) if total is None else total
    batches = micro_batches(samples, hyper.micro_batch_tokens) if batches is None else batches
    sums = dict(pg=0.0, kl=0.0, clipped=0.0, approx_kl=0.0, entropy=0.0, corrected=0.0, distill=0.0)
    sums["micro_batches"] = float(len(batches))
    scorer.train()
    try:
        for batch in batches:
            for key, value in run_micro_batch(scorer, [samples[i] for i in batch], hyper, total, ctx).items():
                sums[key] += value
    finally:
        scorer.eval()
    return sums


def _predicting_entropy(logits: Tensor, inp: ModelInput) -> Tensor:
    """(B, T): entropy of the distribution each token was predicted from (at t − 1, or at its parent)."""
    if inp.parents is None:
        entropy = entropy_from_logits(logits[:, :-1])
        return torch.cat([torch.zeros_like(entropy[:, :1]), entropy], dim=1)
    return at_parents(entropy_from_logits(logits), inp.parents)


def step_stats(
    sums: dict[str, float], samples: list[Sample], hyper: Hyper, grad_norm: float, seconds: float
) -> dict[str, Any]:
    """TrainStats from the (all-rank) stat sums. `loss = pgLoss + klCoef · klLoss + distillCoef ·
    distillKl`, `klLoss` the mean k3 KL to the reference (0 when klCoef is 0), `distillKl` the mean
    teacher-top-k KL (`top_k_kl`; 0 without distillation), `approxKl` the mean k3 KL between the rollout and
    current policies, `entropy` the mean full-distribution entropy at masked positions, `gradNorm`
    the norm before clipping. Every mean is weighted like the loss."""
    total = loss_weight(samples)
    pg_loss, kl_loss, distill_kl = sums["pg"] / total, sums["kl"] / total, sums["distill"] / total
    return {
        "loss": pg_loss + hyper.kl_coef * kl_loss + hyper.distill_coef * distill_kl,
        "pgLoss": pg_loss,
        "klLoss": kl_loss,
        "distillKl": distill_kl,
        "clipFraction": sums["clipped"] / total,
        "approxKl": sums["approx_kl"] / total,
        # behaviour (the sampling engine: older weights, serving kernels) vs trainer: the same k3 estimate
        "mismatchKl": sums["approx_kl"] / total,
        "correction": hyper.correction.mode,
        "correctedFraction": sums["corrected"] / total,
        "entropy": sums["entropy"] / total,
        "gradNorm": grad_norm,
        "tokens": sum(len(s.token_ids) for s in samples),
        "trainedTokens": sum(sum(s.loss_mask) for s in samples),
        "lossWeight": total,
        "microBatches": int(sums["micro_batches"]),
        "dryRun": hyper.dry_run,
        "seconds": seconds,
    }


def grad_norm(params: list[torch.nn.Parameter], sum_ranks: Callable[[float], float] = lambda x: x) -> float:
    """The gradient's L2 norm in float64 (fp32 reductions over millions of entries drift by ~1e-5,
    which would hide whether two runs computed the same gradient). Under FSDP each rank holds
    disjoint shards: the squared norms of the local shards are summed over the ranks."""
    squares = 0.0
    with torch.no_grad():
        for p in params:
            g = p.grad
            if g is None:
                continue
            flat = (g.to_local() if hasattr(g, "to_local") else g).reshape(-1)
            for lo in range(0, flat.numel(), 1 << 24):
                squares += float(torch.linalg.vector_norm(flat[lo : lo + (1 << 24)], dtype=torch.float64)) ** 2
    return math.sqrt(sum_ranks(squares))


def clip_and_step(
    optimizer: torch.optim.Optimizer,
    params: list[torch.nn.Parameter],
    hyper: Hyper,
    sum_ranks: Callable[[float], float] = lambda x: x,
) -> float:
    """Clip the gradient norm (reported before clipping), then one AdamW update unless a dry run.
    A non-finite norm skips the update and raises (weights unchanged)."""
    norm = grad_norm(params, sum_ranks)
    if not math.isfinite(norm):
        optimizer.zero_grad(set_to_none=True)
        raise EngineError(
            "internal",
            "non_finite_gradient",
            f"gradient norm is {norm}; the update was skipped and weights are unchanged",
        )
    if hyper.max_grad_norm > 0 and norm > hyper.max_grad_norm:
        scale = hyper.max_grad_norm / (norm + 1e-6)  # as torch.nn.utils.clip_grad_norm_
        with torch.no_grad():
            for p in params:
                if p.grad is not None:
                    p.grad.mul_(scale)
    if not hyper.dry_run:
        for group in optimizer.param_groups:
            group["lr"] = hyper.lr
        optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return norm
