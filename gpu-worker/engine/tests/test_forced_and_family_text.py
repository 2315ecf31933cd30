"""Test-only forced replies (forced.py) on both generation paths, and the per-family text settings of
`load`: replies that keep special tokens (Harmony) and tool-call arguments kept as JSON text (DeepSeek-V3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch
from agentjet_engine import forced, serving
from agentjet_engine.engine import Engine
from agentjet_engine.rendering import normalise_messages


def _prompt(engine: Engine) -> list[int]:
    return engine.render({"messages": [{"role": "user", "content": "hi"}]})["tokenIds"]


def _forced_engine(make_engine: Any, tmp_path: Path, monkeypatch: Any, replies: list[list[int]]) -> Engine:
    file = tmp_path / "forced.json"
    file.write_text(json.dumps({"replies": replies}))
    monkeypatch.setenv(forced.ENV, str(file))
    return make_engine()


@pytest.mark.parametrize("path", ["continuous", "static"])
def test_forced_replies_take_the_given_tokens_with_the_model_logprobs(
    make_engine: Any, tmp_path: Path, monkeypatch: Any, path: str
) -> None:
    if path == "static":
        monkeypatch.setattr(serving, "unsupported_reason", lambda model: "forced by the test")
    probe = make_engine()
    eos = probe.info()["eosTokenIds"][0]
    reply = [5, 9, 11, 7, eos]
    engine = _forced_engine(make_engine, tmp_path, monkeypatch, [reply, [6, 6, 6]])
    assert engine.serving.continuous is (path == "continuous")
    p = _prompt(engine)
    first = engine.generate({"requests": [{"promptIds": p, "maxTokens": 20, "temperature": 1.0, "seed": 1}]})
    r = first["results"][0]
    assert r["tokenIds"] == reply and r["finishReason"] == "stop"
    lp = engine.logprobs({"sequences": [{"tokenIds": p + reply}]})["logprobs"][0][len(p) :]
    assert max(abs(a - b) for a, b in zip(lp, r["logprobs"])) < 1e-4
    # A reply without a stop token ends when used up ("length"); then sampling is normal again.
    r2 = engine.generate({"requests": [{"promptIds": p, "maxTokens": 20, "temperature": 0.0}]})["results"][0]
    assert r2["tokenIds"] == [6, 6, 6] and r2["finishReason"] == "length"
    r3 = engine.generate({"requests": [{"promptIds": p, "maxTokens": 4, "temperature": 0.0}]})["results"][0]
    greedy = probe.generate({"requests": [{"promptIds": p, "maxTokens": 4, "temperature": 0.0}]})["results"][0]
    assert r3["tokenIds"] == greedy["tokenIds"]


def test_a_malformed_forced_file_is_refused(tmp_path: Path, monkeypatch: Any) -> None:
    file = tmp_path / "forced.json"
    file.write_text(json.dumps({"replies": [[]]}))
    monkeypatch.setenv(forced.ENV, str(file))
    with pytest.raises(ValueError, match=forced.ENV):
        Engine(threads=1)


def test_force_tokens_replaces_only_rows_with_tokens_left() -> None:
    chosen = torch.tensor([1, 2, 3])
    out = forced.force_tokens(chosen, [((7, 8), 1), ((), 0), ((9,), 1)])
    assert out.tolist() == [8, 2, 3] and chosen.tolist() == [1, 2, 3]


def test_decode_special_tokens_keeps_them_less_the_stop_tokens(make_engine: Any) -> None:
    plain, keeping = make_engine(), make_engine(decodeSpecialTokens=True)
    tok = plain.loaded.tokenizer
    start, eos = tok.convert_tokens_to_ids("<|im_start|>"), plain.info()["eosTokenIds"][0]
    ids = [start, *tok("abc", add_special_tokens=False)["input_ids"], eos]
    assert plain.loaded.decode_reply(ids) == "abc"
    assert keeping.loaded.decode_reply(ids) == "<|im_start|>abc"


def test_tool_arguments_as_text_keep_the_clients_string_and_null_content() -> None:
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}}
    obj = {"id": "d", "type": "function", "function": {"name": "f", "arguments": {"b": 2}}}
    messages = [{"role": "user", "content": "x"}, {"role": "assistant", "content": None, "tool_calls": [call, obj]}]
    as_text = normalise_messages(messages, arguments_as_text=True)[1]
    assert as_text["content"] is None
    assert [c["function"]["arguments"] for c in as_text["tool_calls"]] == ['{"a":1}', '{"b": 2}']
    parsed = normalise_messages(messages)[1]
    assert parsed["content"] == "" and parsed["tool_calls"][0]["function"]["arguments"] == {"a": 1}
