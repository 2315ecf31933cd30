"""The chunked output head against full logits: the same logprobs, entropies and gradients."""

from __future__ import annotations

import pytest
import torch
from agentjet_engine.head import HeadLogprobs, chunk_rows, head_logprobs


def full_reference(
    hidden: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, tokens: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    logits = torch.nn.functional.linear(hidden.float(), weight.float(), None if bias is None else bias.float())
    logp_all = torch.log_softmax(logits, -1)
    return logp_all.gather(1, tokens.unsqueeze(1)).squeeze(1), -(logp_all.exp() * logp_all).sum(-1)


@pytest.mark.parametrize("chunk", [1, 7, 64, 1000])
@pytest.mark.parametrize("with_bias", [False, True])
def test_chunked_head_equals_full_logits(chunk: int, with_bias: bool) -> None:
    g = torch.Generator().manual_seed(chunk)
    n, h, v = 53, 16, 97
    hidden = torch.randn(n, h, generator=g, dtype=torch.float64).float().requires_grad_()
    weight = torch.randn(v, h, generator=g).mul(0.5).requires_grad_()
    bias = torch.randn(v, generator=g).requires_grad_() if with_bias else None
    tokens = torch.randint(0, v, (n,), generator=g)
    upstream = torch.randn(n, generator=g)

    logp, entropy = HeadLogprobs.apply(hidden, weight, bias, tokens, chunk)
    (logp * upstream).sum().backward()
    got = [hidden.grad.clone(), weight.grad.clone()] + ([bias.grad.clone()] if bias is not None else [])
    for t in [hidden, weight] + ([bias] if bias is not None else []):
        t.grad = None
    ref_logp, ref_entropy = full_reference(hidden, weight, bias, tokens)
    (ref_logp * upstream).sum().backward()
    want = [hidden.grad, weight.grad] + ([bias.grad] if bias is not None else [])

    assert torch.allclose(logp, ref_logp, atol=1e-5, rtol=1e-5)
    assert torch.allclose(entropy, ref_entropy, atol=1e-5, rtol=1e-5)
    assert not entropy.requires_grad
    for a, b in zip(got, want):
        assert torch.allclose(a, b, atol=1e-5, rtol=1e-5), (a - b).abs().max()


def test_frozen_head_and_bf16_hidden() -> None:
    g = torch.Generator().manual_seed(1)
    hidden = torch.randn(10, 8, generator=g).to(torch.bfloat16).requires_grad_()
    head = torch.nn.Linear(8, 33, bias=False)
    head.weight.requires_grad_(False)
    tokens = torch.randint(0, 33, (10,), generator=g)
    logp, _ = head_logprobs(head, hidden, tokens, chunk=3)
    assert logp.dtype == torch.float32
    logp.sum().backward()
    assert hidden.grad is not None and hidden.grad.dtype == torch.bfloat16 and head.weight.grad is None
    ref, _ = full_reference(hidden.detach(), head.weight, None, tokens)
    assert torch.allclose(logp, ref, atol=1e-5)


def test_a_wrapped_head_goes_through_checkpointed_chunks() -> None:
    g = torch.Generator().manual_seed(2)
    inner = torch.nn.Linear(8, 21)
    wrapped = torch.nn.Sequential(inner)  # not a plain Linear (e.g. a LoRA-wrapped head)
    hidden = torch.randn(9, 8, generator=g, requires_grad=True)
    tokens = torch.randint(0, 21, (9,), generator=g)
    wrapped.out_features = 21  # type: ignore[attr-defined]
    logp, entropy = head_logprobs(wrapped, hidden, tokens, chunk=4)
    logp.sum().backward()
    grad = hidden.grad.clone()
    hidden.grad = None
    ref, ref_entropy = full_reference(hidden, inner.weight, inner.bias, tokens)
    ref.sum().backward()
    assert torch.allclose(logp, ref, atol=1e-5) and torch.allclose(entropy, ref_entropy, atol=1e-5)
    assert torch.allclose(grad, hidden.grad, atol=1e-6)


def test_chunk_rows_bound_the_logits() -> None:
    assert chunk_rows(151_936) * 151_936 <= 2**26
    assert chunk_rows(686) >= 4096 and chunk_rows(10**9) == 16
