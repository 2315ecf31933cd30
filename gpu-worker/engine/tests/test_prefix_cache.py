"""Prefix KV reuse is exact: a sequence continued from cached blocks gets the same tokens for its seed
and the same logprobs (within 1e-4, fp32) as one computed from scratch — for linear multi-turn
growth, rewritten histories and branching groups — and generation logprobs equal a `logprobs`
recomputation whatever else is in the batch."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from agentjet_engine import serving as engine_serving
from agentjet_engine.engine import Engine
from agentjet_engine.scheduler import ContinuousBatcher

TOL = 1e-4


def fresh(make_engine: Callable[..., Engine], **serving: int) -> Engine:
    engine = make_engine()
    engine.configure(serving)
    return engine


def request(prompt: list[int], seed: int, tokens: int = 16, **extra: Any) -> dict[str, Any]:
    return {"promptIds": prompt, "maxTokens": tokens, "temperature": 1.0, "seed": seed, "stopIds": [], **extra}


def run(engine: Engine, *requests: dict[str, Any]) -> list[dict[str, Any]]:
    return engine.generate({"requests": list(requests)})["results"]


def assert_same(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a["tokenIds"] == b["tokenIds"]
    assert max(abs(x - y) for x, y in zip(a["logprobs"], b["logprobs"])) < TOL


def batcher(engine: Engine) -> ContinuousBatcher:
    return engine.serving.batcher


def user_prompt(engine: Engine, text: str) -> list[int]:
    return engine.render(
        {"messages": [{"role": "system", "content": "You are exact. " * 6}, {"role": "user", "content": text}]}
    )["tokenIds"]


def test_linear_multi_turn_growth_reuses_the_previous_turn(make_engine: Callable[..., Engine]) -> None:
    cached, scratch = fresh(make_engine), fresh(make_engine, prefixCacheBytes=0)
    prompt = user_prompt(cached, "What is 12 + 30?")
    for turn in range(4):
        a = run(cached, request(prompt, seed=turn))[0]
        b = run(scratch, request(prompt, seed=turn))[0]
        assert_same(a, b)
        if turn > 0:  # everything but the new tail came from the cache
            assert a["cachedTokens"] >= len(prompt) - len(a["tokenIds"]) - 16 - 6
        assert b["cachedTokens"] == 0
        prompt = prompt + a["tokenIds"] + [7, 8, 9, 10, 11, 12]
    stats = cached.cache_stats()["prefixCache"]
    assert stats["hits"] == 3 and stats["reusedTokens"] > stats["prefilledTokens"] / 2


def test_rewritten_history_reuses_only_the_common_prefix(make_engine: Callable[..., Engine]) -> None:
    cached, scratch = fresh(make_engine), fresh(make_engine, prefixCacheBytes=0)
    base = user_prompt(cached, "Tell me about 7 * 8 and 9 * 6.")
    run(cached, request(base + [20] * 40, seed=1))
    rewritten = base[:40] + [21, 22, 23] * 10 + base[40:]  # history changed after token 40
    a = run(cached, request(rewritten, seed=2))[0]
    assert_same(a, run(scratch, request(rewritten, seed=2))[0])
    assert a["cachedTokens"] == 32  # the whole blocks before the change, no more


def test_branching_group_prefills_the_shared_prompt_once(make_engine: Callable[..., Engine]) -> None:
    cached, scratch = fresh(make_engine), fresh(make_engine, prefixCacheBytes=0)
    prompt = user_prompt(cached, "Guess a number between 1 and 100.")
    group = [request(prompt, seed=s, tokens=12) for s in range(8)]
    a, b = run(cached, *group), run(scratch, *group)
    for x, y in zip(a, b):
        assert_same(x, y)
    computed = batcher(cached).stats.prefill_tokens
    assert computed < 2 * len(prompt)  # once, plus the tails below a whole block
    assert batcher(scratch).stats.prefill_tokens == 8 * len(prompt)
    # branches of the branches: continue two rollouts, each from its own finished sequence
    second = [request(prompt + a[i]["tokenIds"] + [30, 31, 32], seed=10 + i) for i in (0, 5)]
    for x, y in zip(run(cached, *second), run(scratch, *second)):
        assert_same(x, y)
        assert x["cachedTokens"] > len(prompt) - 16


def test_logprobs_match_a_recomputation_whatever_the_batch(
    make_engine: Callable[..., Engine], monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = fresh(make_engine, prefillTokens=64, maxRows=6)  # chunked prefill, rows that wait
    rng = random.Random(0)
    base = user_prompt(engine, "Numbers: 1 2 3 4 5 6 7 8 9.")
    run(engine, request(base, seed=99))  # something in the cache to reuse
    prompts = []
    for _ in range(12):
        cut = rng.randrange(1, len(base))
        tail = [rng.randrange(5, 400) for _ in range(rng.randrange(1, 90))]
        prompts.append((base[:cut] + tail)[:200])
    settings = [dict(temperature=1.0), dict(temperature=0.7, topP=0.9), dict(temperature=0.0)]
    requests = [{**request(p, seed=i, tokens=rng.randrange(1, 30)), **settings[i % 3]} for i, p in enumerate(prompts)]
    together = run(engine, *requests)
    recomputed = engine.logprobs({"sequences": [{"tokenIds": p + r["tokenIds"]} for p, r in zip(prompts, together)]})
    for p, r, lp in zip(prompts, together, recomputed["logprobs"]):
        assert len(r["tokenIds"]) == len(r["logprobs"]) > 0
        assert max(abs(a - b) for a, b in zip(lp[len(p) :], r["logprobs"])) < TOL
    # a request's tokens for its seed do not depend on the batch: each alone, and in the static path
    # (the one a model the continuous batcher cannot reproduce takes)
    alone = [run(engine, q)[0] for q in requests[:4]]
    monkeypatch.setattr(engine_serving, "unsupported_reason", lambda model: "forced by the test")
    static = run(make_engine(), *requests[:4])
    for x, y, z in zip(together, alone, static):
        assert x["tokenIds"] == y["tokenIds"] == z["tokenIds"]


def test_small_budget_evicts_least_recently_used_and_stays_exact(make_engine: Callable[..., Engine]) -> None:
    engine = make_engine()
    block_bytes = batcher(engine).prefix.bytes_per_block
    engine.configure({"prefixCacheBytes": 16 * block_bytes})  # the pool holds 16 blocks at most
    scratch = fresh(make_engine, prefixCacheBytes=0)
    prompts = [user_prompt(engine, f"Question {i}: what is {i} * {i + 3}? " * 3) for i in range(10)]
    for i, p in enumerate(prompts):
        assert_same(run(engine, request(p, seed=i))[0], run(scratch, request(p, seed=i))[0])
    stats = engine.cache_stats()["prefixCache"]
    assert stats["evictions"] > 0 and stats["blocks"] <= 16
    assert_same(run(engine, request(prompts[-1], seed=3))[0], run(scratch, request(prompts[-1], seed=3))[0])


def test_weight_change_drops_the_cache(engine: Engine) -> None:
    prompt = user_prompt(engine, "What is 2 + 2?")
    run(engine, request(prompt, seed=0))
    assert batcher(engine).prefix.blocks
    engine.serving.weights_changed()
    assert not batcher(engine).prefix.blocks and engine.cache_stats()["prefixCache"]["clears"] == 1
    assert run(engine, request(prompt, seed=0))[0]["cachedTokens"] == 0


def test_stop_strings_end_the_reply_and_are_cut_from_the_text(engine: Engine) -> None:
    prompt = user_prompt(engine, "Say something.")
    plain = run(engine, request(prompt, seed=5, tokens=30))[0]
    text = plain["text"]
    if len(text) < 6:
        pytest.skip("the reply is too short to pick a stop string from")
    stop = text[3:5]
    cut = run(engine, request(prompt, seed=5, tokens=30, stop=[stop]))[0]
    first = text.index(stop)
    assert cut["finishReason"] == "stop" and cut["text"] == text[:first]
    decoded = engine.decode({"sequences": [cut["tokenIds"], cut["tokenIds"][:-1]]})["texts"]
    assert stop in decoded[0] and stop not in decoded[1]  # ends with the token that completed it
    assert cut["tokenIds"] == plain["tokenIds"][: len(cut["tokenIds"])]
