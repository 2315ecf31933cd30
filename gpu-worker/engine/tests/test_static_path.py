"""The static path serves a model the continuous batcher cannot reproduce, and honours every sampling
parameter the continuous path does with the same results for a seed: temperature, top-p, seed, stop
ids, max tokens and stop strings (the tokens end with the one that completed it, the text before it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from agentjet_engine import serving
from agentjet_engine.engine import Engine

FIELDS = ("tokenIds", "finishReason", "text")


@pytest.fixture
def static_engine(make_engine: Callable[..., Engine], monkeypatch: pytest.MonkeyPatch) -> Engine:
    """An engine whose model the continuous batcher declares it cannot drive (as for soft-capped attention)."""
    monkeypatch.setattr(serving, "unsupported_reason", lambda model: "forced by the test")
    return make_engine()


def run(engine: Engine, *requests: dict[str, Any]) -> list[dict[str, Any]]:
    return engine.generate({"requests": list(requests)})["results"]


def prompt(engine: Engine, content: str) -> list[int]:
    return engine.render({"messages": [{"role": "user", "content": content}]})["tokenIds"]


def same(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert {k: a[k] for k in FIELDS} == {k: b[k] for k in FIELDS}
    assert max((abs(x - y) for x, y in zip(a["logprobs"], b["logprobs"])), default=0.0) < 1e-4


def test_the_engine_says_why_and_which_path(engine: Engine, static_engine: Engine) -> None:
    assert engine.info()["serving"]["mode"] == "continuous"
    summary = static_engine.info()["serving"]
    assert summary["mode"] == "static" and summary["continuous"] is False
    assert summary["fallback"] == "forced by the test"
    assert static_engine.cache_stats()["mode"] == "static"


def test_stop_strings_end_the_output_as_on_the_continuous_path(engine: Engine, static_engine: Engine) -> None:
    p = prompt(engine, "Count from one to twenty, please.")
    base = {"promptIds": p, "maxTokens": 40, "temperature": 0.0, "stopIds": []}
    full = run(engine, base)[0]
    same(full, run(static_engine, base)[0])
    text = full["text"]
    assert len(text) >= 8, text
    stop = text[4:6]  # a stop string the reply is known to contain
    cut = text.index(stop)
    stopped = [run(e, {**base, "stop": [stop, "never-there"]})[0] for e in (engine, static_engine)]
    same(stopped[0], stopped[1])
    r = stopped[1]
    assert r["finishReason"] == "stop" and r["text"] == text[:cut]
    assert len(r["tokenIds"]) < len(full["tokenIds"]) and full["tokenIds"][: len(r["tokenIds"])] == r["tokenIds"]
    # the last token completes the stop string: one token fewer would not contain it
    decode = engine.loaded.tokenizer.decode
    assert stop in decode(r["tokenIds"], skip_special_tokens=True)
    assert stop not in decode(r["tokenIds"][:-1], skip_special_tokens=True)


def test_every_sampling_parameter_in_one_batch(engine: Engine, static_engine: Engine) -> None:
    p = [prompt(engine, q) for q in ("What is 7 * 8?", "Hi", "Name three colours and a number: 你好 🙂")]
    greedy = run(engine, {"promptIds": p[0], "maxTokens": 12, "temperature": 0.0, "stopIds": []})[0]
    stop_id = greedy["tokenIds"][3]
    sampled = run(engine, {"promptIds": p[2], "maxTokens": 30, "temperature": 1.0, "seed": 5, "stopIds": []})[0]
    stop_text = sampled["text"][2:4] if len(sampled["text"]) >= 4 else "zz"
    requests = [
        {"promptIds": p[0], "maxTokens": 12, "temperature": 0.0, "stopIds": [stop_id]},
        {"promptIds": p[1], "maxTokens": 9, "temperature": 0.7, "topP": 0.9, "seed": 3, "stopIds": []},
        {"promptIds": p[2], "maxTokens": 30, "temperature": 1.0, "seed": 5, "stopIds": [], "stop": [stop_text]},
        {"promptIds": p[1], "maxTokens": 0, "temperature": 1.0, "seed": 1},
        {"promptIds": p[0], "maxTokens": 20, "temperature": 1.0, "seed": 11},  # the model's eos ids
    ]
    continuous, static = run(engine, *requests), run(static_engine, *requests)
    for a, b in zip(continuous, static):
        same(a, b)
    assert static[0]["finishReason"] == "stop" and static[0]["tokenIds"][-1] == stop_id
    assert len(static[1]["tokenIds"]) == 9 and static[1]["finishReason"] == "length"
    if stop_text != "zz":
        assert static[2]["finishReason"] == "stop" and stop_text not in static[2]["text"]
    assert static[3]["tokenIds"] == [] and static[3]["finishReason"] == "length"
