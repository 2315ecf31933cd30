"""The policy-gradient step: PPO-clip over masked tokens, micro-batched with gradient accumulation.

Samples are linear sequences or tree-packed ones (`parents`, `positions`; see `trees.py`), and may
carry per-token loss `weights` (a tree token standing for several unmerged occurrences): the
step's loss is Σ w·loss / Σ w over the masked tokens of the whole step (w = 1 when absent).
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from . import params as P
from .batching import pack_by_token_budget
from .errors import EngineError, context_overflow, invalid
from .losses import entropy_from_logits, k3_kl, masked_sum, ppo_clip_loss
from .scoring import forward_input, input_logprobs
from .trees import ModelInput, TokenSeq, at_parents, make_input, parse_token_seq


@dataclass
class Hyper:
    lr: float
    clip_low: float = 0.2
    clip_high: float = 0.2
    kl_coef: float = 0.0
    max_grad_norm: float = 1.0        # ≤ 0 disables clipping (the norm is still reported)
    micro_batch_tokens: int = 4096
    dry_run: bool = False             # loss + gradient norm only: no optimizer step, no version bump


@dataclass
class Sample:
    token_ids: list[int]
    loss_mask: list[int]
    advantages: list[float]          # per token (a scalar advantage is broadcast)
    rollout_logprobs: list[float]    # only positions with loss_mask 1 are read
    parents: list[int] | None = None     # tree-packed: parent index per token (-1 at the root)
    positions: list[int] | None = None   # tree-packed: depth per token
    weights: list[float] | None = None   # per-token loss weight (1 when None); read where masked

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
    return Sample(ids, list(mask), advantages, rollout, seq.parents, seq.positions, weights)


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


ReferenceFn = Callable[[ModelInput], Tensor]  # micro-batch → reference logprob of each token (B, T)


def weighted_sum(values: Tensor, weights: Tensor, mask: Tensor) -> Tensor:
    """Σ weights·values where `mask`; masked-out entries (even inf/nan) contribute exactly 0."""
    return masked_sum(values * weights, mask)


def accumulate_gradients(model: Any, samples: list[Sample], hyper: Hyper, *, pad_id: int, device: torch.device,
                         autocast: Callable[[], contextlib.AbstractContextManager[Any]],
                         reference: ReferenceFn | None, mask_dtype: torch.dtype = torch.float32) -> dict[str, float]:
    """Forward/backward every micro-batch, leaving the step's gradient in `.grad`; returns stat sums.

    The loss is a weighted token-mean over all masked tokens of the whole step: each micro-batch
    backpropagates its weighted masked *sum* divided by the step's total weight, so accumulation
    reproduces the full-batch gradient exactly. A micro-batch that holds a tree sample runs with a
    4-D tree attention mask (in `mask_dtype`, the compute dtype) and depth position ids; every
    token's logprob is read from the logits at its parent.
    """
    total = loss_weight(samples)
    batches = pack_by_token_budget([len(s.token_ids) for s in samples], hyper.micro_batch_tokens)
    sums = dict(pg=0.0, kl=0.0, clipped=0.0, approx_kl=0.0, entropy=0.0, micro_batches=float(len(batches)))
    model.train()
    try:
        for batch in batches:
            chunk = [samples[i] for i in batch]
            inp = make_input([s.seq() for s in chunk], pad_id, mask_dtype, device)
            width = inp.ids.shape[1]
            mask = _padded([s.loss_mask for s in chunk], width, device).bool()
            weight = _padded([s.loss_weights() for s in chunk], width, device)
            adv = _padded([s.advantages for s in chunk], width, device)
            rollout = _padded([s.rollout_logprobs for s in chunk], width, device)

            logits = forward_input(model, inp, autocast())
            logp = input_logprobs(logits, inp)
            pg, clipped, _ = ppo_clip_loss(logp, rollout, adv, mask, hyper.clip_low, hyper.clip_high)
            loss = weighted_sum(pg, weight, mask) / total
            if reference is not None and hyper.kl_coef > 0:
                with torch.no_grad():
                    ref_logp = reference(inp)
                kl = k3_kl(logp, ref_logp)
                loss = loss + hyper.kl_coef * weighted_sum(kl, weight, mask) / total
                sums["kl"] += weighted_sum(kl.detach(), weight, mask).item()
            loss.backward()

            with torch.no_grad():
                sums["pg"] += weighted_sum(pg.detach(), weight, mask).item()
                sums["clipped"] += weighted_sum(clipped.float(), weight, mask).item()
                log_ratio = logp.detach() - rollout
                sums["approx_kl"] += weighted_sum(torch.expm1(log_ratio) - log_ratio, weight, mask).item()
                sums["entropy"] += weighted_sum(_predicting_entropy(logits.detach(), inp), weight, mask).item()
            del logits, logp, loss
    finally:
        model.eval()
    return sums


def _predicting_entropy(logits: Tensor, inp: ModelInput) -> Tensor:
    """(B, T): entropy of the distribution each token was predicted from (at t − 1, or at its parent)."""
    if inp.parents is None:
        entropy = entropy_from_logits(logits[:, :-1])
        return torch.cat([torch.zeros_like(entropy[:, :1]), entropy], dim=1)
    return at_parents(entropy_from_logits(logits), inp.parents)


def train_step(model: Any, optimizer: torch.optim.Optimizer, params: list[torch.nn.Parameter],
               samples: list[Sample], hyper: Hyper, *, pad_id: int, device: torch.device,
               autocast: Callable[[], contextlib.AbstractContextManager[Any]],
               reference: ReferenceFn | None, mask_dtype: torch.dtype = torch.float32) -> dict[str, Any]:
    """One optimizer step: accumulate gradients, clip their norm, one AdamW update.

    Stats: `loss = pgLoss + klCoef · klLoss`, `klLoss` the mean k3 KL to the reference (0 when
    klCoef is 0), `approxKl` the mean k3 KL between the rollout and current policies, `entropy`
    the mean full-distribution entropy at masked positions, `gradNorm` the norm before clipping.
    Every mean is weighted like the loss. With `hyper.dry_run` the gradient is computed and
    measured but no update is made (weights and optimizer state stay as they were).
    """
    started = time.perf_counter()
    total = loss_weight(samples)
    optimizer.zero_grad(set_to_none=True)
    sums = accumulate_gradients(model, samples, hyper, pad_id=pad_id, device=device, autocast=autocast,
                                reference=reference, mask_dtype=mask_dtype)
    max_norm = hyper.max_grad_norm if hyper.max_grad_norm > 0 else math.inf
    grad_norm = float(torch.nn.utils.clip_grad_norm_(params, max_norm))
    if not math.isfinite(grad_norm):
        optimizer.zero_grad(set_to_none=True)
        raise EngineError("internal", "non_finite_gradient",
                          f"gradient norm is {grad_norm}; the update was skipped and weights are unchanged")
    if not hyper.dry_run:
        for group in optimizer.param_groups:
            group["lr"] = hyper.lr
        optimizer.step()
    optimizer.zero_grad(set_to_none=True)

    pg_loss, kl_loss = sums["pg"] / total, sums["kl"] / total
    return {
        "loss": pg_loss + hyper.kl_coef * kl_loss,
        "pgLoss": pg_loss,
        "klLoss": kl_loss,
        "clipFraction": sums["clipped"] / total,
        "approxKl": sums["approx_kl"] / total,
        "entropy": sums["entropy"] / total,
        "gradNorm": grad_norm,
        "tokens": sum(len(s.token_ids) for s in samples),
        "trainedTokens": sum(sum(s.loss_mask) for s in samples),
        "lossWeight": total,
        "microBatches": int(sums["micro_batches"]),
        "dryRun": hyper.dry_run,
        "seconds": time.perf_counter() - started,
    }
