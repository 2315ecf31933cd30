"""The policy-gradient step: PPO-clip over masked tokens, micro-batched with gradient accumulation."""

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
from .batching import pack_by_token_budget, pad_right
from .errors import EngineError, context_overflow, invalid
from .losses import entropy_from_logits, k3_kl, masked_sum, ppo_clip_loss
from .scoring import forward_logits, shifted_logprobs


@dataclass
class Hyper:
    lr: float
    clip_low: float = 0.2
    clip_high: float = 0.2
    kl_coef: float = 0.0
    max_grad_norm: float = 1.0        # ≤ 0 disables clipping (the norm is still reported)
    micro_batch_tokens: int = 4096


@dataclass
class Sample:
    token_ids: list[int]
    loss_mask: list[int]
    advantages: list[float]          # per token (a scalar advantage is broadcast)
    rollout_logprobs: list[float]    # only positions with loss_mask 1 are read


def parse_hyper(raw: Any) -> Hyper:
    h = P.obj(raw, "hyper")
    return Hyper(
        lr=P.get_float(h, "lr", "hyper", lo=0.0),
        clip_low=P.get_float(h, "clipLow", "hyper", default=0.2, lo=0.0, hi=1.0),
        clip_high=P.get_float(h, "clipHigh", "hyper", default=0.2, lo=0.0),
        kl_coef=P.get_float(h, "klCoef", "hyper", default=0.0, lo=0.0),
        max_grad_norm=P.get_float(h, "maxGradNorm", "hyper", default=1.0),
        micro_batch_tokens=P.get_int(h, "microBatchTokens", "hyper", default=4096, lo=1),
    )


def parse_sample(raw: Any, field: str, vocab_size: int, context: int) -> Sample:
    s = P.obj(raw, field)
    ids = P.token_ids(s.get("tokenIds"), f"{field}.tokenIds", vocab_size, min_len=2)
    if len(ids) > context:
        raise context_overflow(f"{field}.tokenIds", len(ids), context)
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
    return Sample(ids, list(mask), advantages, rollout)


def parse_samples(raw: Any, vocab_size: int, context: int) -> list[Sample]:
    if not isinstance(raw, list) or not raw:
        raise invalid("samples", "must be a non-empty array of samples")
    samples = [parse_sample(s, f"samples[{i}]", vocab_size, context) for i, s in enumerate(raw)]
    if not any(any(s.loss_mask) for s in samples):
        raise invalid("samples", "no token has lossMask 1, so there is nothing to train", "empty_loss_mask")
    return samples


def _padded(rows: list[list[float]], width: int, device: torch.device) -> Tensor:
    out = torch.zeros((len(rows), width), dtype=torch.float32)
    for i, r in enumerate(rows):
        out[i, : len(r)] = torch.tensor(r, dtype=torch.float32)
    return out.to(device)


ReferenceFn = Callable[[Tensor, Tensor], Tensor]  # (ids, mask) → shifted reference logprobs (B, T)


def accumulate_gradients(model: Any, samples: list[Sample], hyper: Hyper, *, pad_id: int, device: torch.device,
                         autocast: Callable[[], contextlib.AbstractContextManager[Any]],
                         reference: ReferenceFn | None) -> dict[str, float]:
    """Forward/backward every micro-batch, leaving the step's gradient in `.grad`; returns stat sums.

    The loss is a token-mean over all masked tokens of the whole step: each micro-batch
    backpropagates its masked *sum* divided by the step's masked-token count, so accumulation
    reproduces the full-batch gradient exactly.
    """
    n_masked = sum(sum(s.loss_mask) for s in samples)
    batches = pack_by_token_budget([len(s.token_ids) for s in samples], hyper.micro_batch_tokens)
    sums = dict(pg=0.0, kl=0.0, clipped=0.0, approx_kl=0.0, entropy=0.0, micro_batches=float(len(batches)))
    model.train()
    try:
        for batch in batches:
            chunk = [samples[i] for i in batch]
            ids, attn = pad_right([s.token_ids for s in chunk], pad_id)
            ids, attn = ids.to(device), attn.to(device)
            width = ids.shape[1]
            mask = _padded([s.loss_mask for s in chunk], width, device).bool()
            adv = _padded([s.advantages for s in chunk], width, device)
            rollout = _padded([s.rollout_logprobs for s in chunk], width, device)

            logits = forward_logits(model, ids, attn, autocast())
            logp = shifted_logprobs(logits, ids)
            pg, clipped, _ = ppo_clip_loss(logp, rollout, adv, mask, hyper.clip_low, hyper.clip_high)
            loss = masked_sum(pg, mask) / n_masked
            if reference is not None and hyper.kl_coef > 0:
                with torch.no_grad():
                    ref_logp = reference(ids, attn)
                kl = k3_kl(logp, ref_logp)
                loss = loss + hyper.kl_coef * masked_sum(kl, mask) / n_masked
                sums["kl"] += masked_sum(kl.detach(), mask).item()
            loss.backward()

            with torch.no_grad():
                sums["pg"] += masked_sum(pg.detach(), mask).item()
                sums["clipped"] += clipped.sum().item()
                log_ratio = logp.detach() - rollout
                sums["approx_kl"] += masked_sum(torch.expm1(log_ratio) - log_ratio, mask).item()
                entropy = entropy_from_logits(logits.detach()[:, :-1])
                sums["entropy"] += masked_sum(entropy, mask[:, 1:]).item()
            del logits, logp, loss
    finally:
        model.eval()
    return sums


def train_step(model: Any, optimizer: torch.optim.Optimizer, params: list[torch.nn.Parameter],
               samples: list[Sample], hyper: Hyper, *, pad_id: int, device: torch.device,
               autocast: Callable[[], contextlib.AbstractContextManager[Any]],
               reference: ReferenceFn | None) -> dict[str, Any]:
    """One optimizer step: accumulate gradients, clip their norm, one AdamW update.

    Stats: `loss = pgLoss + klCoef · klLoss`, `klLoss` the mean k3 KL to the reference (0 when
    klCoef is 0), `approxKl` the mean k3 KL between the rollout and current policies, `entropy`
    the mean full-distribution entropy at masked positions, `gradNorm` the norm before clipping.
    """
    started = time.perf_counter()
    n_masked = sum(sum(s.loss_mask) for s in samples)
    optimizer.zero_grad(set_to_none=True)
    sums = accumulate_gradients(model, samples, hyper, pad_id=pad_id, device=device, autocast=autocast,
                                reference=reference)
    max_norm = hyper.max_grad_norm if hyper.max_grad_norm > 0 else math.inf
    grad_norm = float(torch.nn.utils.clip_grad_norm_(params, max_norm))
    if not math.isfinite(grad_norm):
        optimizer.zero_grad(set_to_none=True)
        raise EngineError("internal", "non_finite_gradient",
                          f"gradient norm is {grad_norm}; the update was skipped and weights are unchanged")
    for group in optimizer.param_groups:
        group["lr"] = hyper.lr
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)

    pg_loss, kl_loss = sums["pg"] / n_masked, sums["kl"] / n_masked
    return {
        "loss": pg_loss + hyper.kl_coef * kl_loss,
        "pgLoss": pg_loss,
        "klLoss": kl_loss,
        "clipFraction": sums["clipped"] / n_masked,
        "approxKl": sums["approx_kl"] / n_masked,
        "entropy": sums["entropy"] / n_masked,
        "gradNorm": grad_norm,
        "tokens": sum(len(s.token_ids) for s in samples),
        "trainedTokens": n_masked,
        "microBatches": int(sums["micro_batches"]),
        "seconds": time.perf_counter() - started,
    }
