"""Sampling and batching helpers: nucleus mask, inverse-CDF draws, token-budget packing, padding."""

from __future__ import annotations

import torch
from agentjet_engine.batching import pack_by_token_budget, pad_left, pad_right, positions_from_mask
from agentjet_engine.sampling import sample_tokens, top_p_keep


def test_top_p_keep_smallest_prefix_reaching_mass() -> None:
    probs = torch.tensor([[0.5, 0.3, 0.15, 0.05], [0.9, 0.05, 0.03, 0.02]])
    keep = top_p_keep(probs, torch.tensor([0.8, 0.5]))
    assert keep.tolist() == [[True, True, False, False], [True, False, False, False]]
    assert top_p_keep(probs, torch.tensor([1.0, 1.0])).all()


def test_sample_tokens_greedy_and_inverse_cdf() -> None:
    logits = torch.log(torch.tensor([[0.1, 0.6, 0.3], [0.1, 0.6, 0.3], [0.1, 0.6, 0.3], [0.1, 0.6, 0.3]]))
    temperature = torch.tensor([0.0, 1.0, 1.0, 1.0])
    top_p = torch.tensor([1.0, 1.0, 1.0, 0.5])
    # top_p = 1: id order, cdf 0.1, 0.7, 1.0 (no sort); top_p = 0.5: the nucleus is {token 1}
    uniforms = torch.tensor([0.99, 0.65, 0.95, 0.99])
    assert sample_tokens(logits, temperature, top_p, uniforms).tolist() == [1, 1, 2, 1]
    assert sample_tokens(logits, temperature, torch.ones(4), torch.tensor([0.0, 0.05, 0.2, 0.75])).tolist() == [
        1,
        0,
        1,
        2,
    ]
    # nucleus rows sort their probabilities: token 1 (0.6), token 2 (0.3), token 0 (0.1)
    assert sample_tokens(
        logits[:2], torch.ones(2), torch.tensor([0.95, 0.95]), torch.tensor([0.65, 0.95])
    ).tolist() == [2, 0]


def test_sample_tokens_never_picks_a_zero_probability_token() -> None:
    logits = torch.tensor([[0.0, 0.0, float("-inf")], [float("-inf"), 0.0, float("-inf")]])
    picks = sample_tokens(logits, torch.ones(2), torch.ones(2), torch.tensor([0.999999, 0.999999]))
    assert picks.tolist() == [1, 1]


def test_sample_tokens_temperature_sharpens() -> None:
    logits = torch.log(torch.tensor([[0.6, 0.4]]))
    # at T=0.1 the top token has ~98% of the mass, so u = 0.9 still picks it; at T=1 it would not
    assert sample_tokens(logits, torch.tensor([0.1]), torch.tensor([1.0]), torch.tensor([0.9])).item() == 0
    assert sample_tokens(logits, torch.tensor([1.0]), torch.tensor([1.0]), torch.tensor([0.9])).item() == 1


def test_sample_tokens_frequencies_follow_probs() -> None:
    g = torch.Generator().manual_seed(0)
    logits = torch.log(torch.tensor([[0.2, 0.5, 0.3]])).expand(4000, 3)
    tokens = sample_tokens(logits, torch.ones(4000), torch.ones(4000), torch.rand(4000, generator=g))
    freq = torch.bincount(tokens, minlength=3).float() / 4000
    assert torch.allclose(freq, torch.tensor([0.2, 0.5, 0.3]), atol=0.03)


def test_pack_by_token_budget() -> None:
    lengths = [10, 3, 8, 2, 30]
    batches = pack_by_token_budget(lengths, budget=20)
    assert sorted(i for b in batches for i in b) == [0, 1, 2, 3, 4]
    for b in batches:
        assert len(b) == 1 or max(lengths[i] for i in b) * len(b) <= 20
    assert batches[0] == [4]  # longer than the budget: alone
    assert pack_by_token_budget([5, 5, 5, 5], budget=100) == [[0, 1, 2, 3]]


def test_padding_and_positions() -> None:
    ids, mask = pad_left([[5, 6, 7], [8]], pad_id=0)
    assert ids.tolist() == [[5, 6, 7], [0, 0, 8]] and mask.tolist() == [[1, 1, 1], [0, 0, 1]]
    assert positions_from_mask(mask).tolist() == [[0, 1, 2], [0, 0, 0]]
    ids, mask = pad_right([[5, 6, 7], [8]], pad_id=0)
    assert ids.tolist() == [[5, 6, 7], [8, 0, 0]] and mask.tolist() == [[1, 1, 1], [1, 0, 0]]
    assert positions_from_mask(mask).tolist() == [[0, 1, 2], [0, 0, 0]]
