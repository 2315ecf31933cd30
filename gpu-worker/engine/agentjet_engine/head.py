"""Log-probabilities and entropies from hidden states through the output head, chunked over tokens.

`HeadLogprobs` computes, for N hidden states and the N tokens they predict, log softmax(h·Wᵀ + b)
at the token (or at K tokens per row: a (N, K) `tokens`, e.g. the target and a teacher's top-k) and
the entropy of the distribution, one chunk of rows at a time in fp32, so at most
`chunk × vocab` logits exist at once — in the backward pass too, which recomputes each chunk's
logits from the saved hidden states (instead of keeping N × vocab of them) and forms
∂logp/∂logits = onehot − softmax directly. For a 152k vocabulary and 32k trained tokens that is the
difference between ~20 GB of fp32 logits (plus the entropy temporaries) and a few hundred MB.
The entropy is a statistic (no gradient). Computing in fp32 matches `fp32_output_head` in loading.py.
"""

from __future__ import annotations

import contextlib
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor

# Rows per chunk are chosen so one chunk's fp32 logits stay near this many elements (256 MiB).
CHUNK_ELEMENTS = 2**26


def chunk_rows(vocab_size: int, elements: int = CHUNK_ELEMENTS) -> int:
    return max(16, elements // max(1, vocab_size))


def _no_autocast(device: torch.device) -> contextlib.AbstractContextManager[Any]:
    return torch.autocast(device_type=device.type, enabled=False)


class HeadLogprobs(torch.autograd.Function):
    """(hidden (N, H), weight (V, H), bias (V,) | None, tokens (N,) or (N, K)) → (logp shaped like
    tokens, entropy (N,)), fp32."""

    @staticmethod
    def forward(
        ctx: Any, hidden: Tensor, weight: Tensor, bias: Tensor | None, tokens: Tensor, chunk: int
    ) -> tuple[Tensor, Tensor]:
        n = hidden.shape[0]
        rows = tokens.reshape(n, -1)
        logp = hidden.new_empty(rows.shape, dtype=torch.float32)
        entropy = hidden.new_empty(n, dtype=torch.float32)
        lse = hidden.new_empty(n, dtype=torch.float32)
        with _no_autocast(hidden.device), torch.no_grad():
            w = weight.float()
            b = None if bias is None else bias.float()
            for lo in range(0, n, chunk):
                hi = min(n, lo + chunk)
                logits = F.linear(hidden[lo:hi].float(), w, b)
                norm = torch.logsumexp(logits, dim=-1)
                lse[lo:hi] = norm
                logp[lo:hi] = logits.gather(1, rows[lo:hi]) - norm.unsqueeze(1)
                probs = torch.exp(logits - norm.unsqueeze(1))
                entropy[lo:hi] = norm - (probs * logits).sum(-1)
                del logits, probs
        ctx.save_for_backward(hidden, weight, bias, tokens, lse)
        ctx.chunk = chunk
        ctx.mark_non_differentiable(entropy)
        return logp.reshape(tokens.shape), entropy

    @staticmethod
    def backward(ctx: Any, grad_logp: Tensor, _grad_entropy: Tensor | None) -> tuple[Tensor | None, ...]:
        hidden, weight, bias, tokens, lse = ctx.saved_tensors
        need_h, need_w, need_b = ctx.needs_input_grad[0], ctx.needs_input_grad[1], ctx.needs_input_grad[2]
        n, chunk = hidden.shape[0], ctx.chunk
        rows = tokens.reshape(n, -1)
        grad_h = torch.empty_like(hidden) if need_h else None
        with _no_autocast(hidden.device), torch.no_grad():
            w = weight.float()
            b = None if bias is None else bias.float()
            grad_w = torch.zeros_like(w) if need_w else None
            grad_b = torch.zeros_like(b) if need_b and b is not None else None
            g_all = grad_logp.float().reshape(rows.shape)
            for lo in range(0, n, chunk):
                hi = min(n, lo + chunk)
                h = hidden[lo:hi].float()
                g = g_all[lo:hi]
                # ∂logp_k/∂logits = onehot(token_k) − softmax, scaled by each incoming gradient g_k
                grad_logits = torch.exp(F.linear(h, w, b) - lse[lo:hi].unsqueeze(1))
                grad_logits.mul_(-g.sum(1, keepdim=True))
                grad_logits.scatter_add_(1, rows[lo:hi], g)
                if grad_h is not None:
                    grad_h[lo:hi] = (grad_logits @ w).to(hidden.dtype)
                if grad_w is not None:
                    grad_w.addmm_(grad_logits.t(), h)
                if grad_b is not None:
                    grad_b += grad_logits.sum(0)
                del grad_logits
        return (
            grad_h,
            None if grad_w is None else grad_w.to(weight.dtype),
            None if grad_b is None else grad_b.to(bias.dtype),
            None,
            None,
        )


def head_logprobs(head: Any, hidden: Tensor, tokens: Tensor, chunk: int | None = None) -> tuple[Tensor, Tensor]:
    """(logp, entropy) of `tokens` (N,) or (N, K) under the output `head` applied to `hidden` (N, H),
    fp32: logp shaped like `tokens`, entropy (N,).

    A plain `nn.Linear` head (the usual case, tied or not) goes through the chunked `HeadLogprobs`;
    any other head (e.g. one wrapped by a LoRA adapter) is applied chunk by chunk under activation
    checkpointing, which bounds the logits the same way at the cost of one extra head forward.
    """
    vocab = head.out_features if hasattr(head, "out_features") else head.weight.shape[0]
    chunk = chunk or chunk_rows(vocab)
    if type(head) is torch.nn.Linear:
        return HeadLogprobs.apply(hidden, head.weight, head.bias, tokens, chunk)
    logps, entropies = [], []
    for lo in range(0, hidden.shape[0], chunk):
        h, t = hidden[lo : lo + chunk], tokens[lo : lo + chunk]
        logp = torch.utils.checkpoint.checkpoint(_module_logp, head, h, t, use_reentrant=False)
        with torch.no_grad():
            logits = head(h).float()
            probs = torch.softmax(logits, -1)
            entropies.append(torch.logsumexp(logits, -1) - (probs * logits).sum(-1))
        logps.append(logp)
    if not logps:
        return hidden.new_zeros(tokens.shape, dtype=torch.float32), hidden.new_zeros(0, dtype=torch.float32)
    return torch.cat(logps), torch.cat(entropies)


def _module_logp(head: Any, h: Tensor, tokens: Tensor) -> Tensor:
    logits = head(h).float()
    rows = tokens.reshape(tokens.shape[0], -1)
    return (logits.gather(1, rows) - torch.logsumexp(logits, -1, keepdim=True)).reshape(tokens.shape)


@torch.no_grad()
def head_top_k(
    head: Any, hidden: Tensor, k: int, chunk: int | None = None, tokens: Tensor | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    """(ids (N, k) int64, logp (N, k) fp32, token logp (N,) fp32): the k most likely tokens after each
    of the N hidden states and their log-probabilities, most likely first (what a distillation teacher
    sends), and from the same logits the logprob of `tokens` (N,) (zeros without them)."""
    vocab = head.out_features if hasattr(head, "out_features") else head.weight.shape[0]
    chunk = chunk or chunk_rows(vocab)
    k = min(k, vocab)
    ids, logps, own = [], [], []
    with _no_autocast(hidden.device):
        for lo in range(0, hidden.shape[0], chunk):
            h = hidden[lo : lo + chunk]
            if type(head) is torch.nn.Linear:  # fp32, as HeadLogprobs computes it
                bias = None if head.bias is None else head.bias.float()
                logits = F.linear(h.float(), head.weight.float(), bias)
            else:
                logits = head(h).float()
            top = torch.topk(logits, k, dim=-1)
            norm = torch.logsumexp(logits, -1, keepdim=True)
            logps.append(top.values - norm)
            ids.append(top.indices)
            if tokens is not None:
                own.append((logits.gather(1, tokens[lo : lo + chunk].unsqueeze(1)) - norm).squeeze(1))
            del logits
    if not ids:
        empty = hidden.new_zeros((0, k), dtype=torch.float32)
        return hidden.new_zeros((0, k), dtype=torch.int64), empty, hidden.new_zeros(0, dtype=torch.float32)
    token_logp = torch.cat(own) if own else hidden.new_zeros(hidden.shape[0], dtype=torch.float32)
    return torch.cat(ids), torch.cat(logps), token_logp
