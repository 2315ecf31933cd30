"""`generate`: batched KV-cache decoding, raw logprobs, seeds, stop ids, finish reasons, context limits."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from agentjet_engine.engine import Engine
from agentjet_engine.errors import EngineError

MESSAGES = [{"role": "user", "content": "What is 7 * 8?"}]


def prompt(engine: Engine, content: str = "What is 7 * 8?") -> list[int]:
    return engine.render({"messages": [{"role": "user", "content": content}]})["tokenIds"]


def gen(engine: Engine, *requests: dict[str, Any]) -> list[dict[str, Any]]:
    return engine.generate({"requests": list(requests)})["results"]


def test_generate_logprobs_equal_recomputed_logprobs(engine: Engine) -> None:
    prompts = [prompt(engine), prompt(engine, "Hi"), prompt(engine, "What is 123 + 456? Explain 你好 🙂 please.")]
    assert len({len(p) for p in prompts}) == 3  # different lengths → real left padding
    settings = [dict(temperature=1.0, topP=1.0), dict(temperature=0.7, topP=0.9), dict(temperature=0.0)]
    results = gen(
        engine, *[{"promptIds": p, "maxTokens": 24, "seed": i, **s} for i, (p, s) in enumerate(zip(prompts, settings))]
    )
    sequences = [{"tokenIds": p + r["tokenIds"]} for p, r in zip(prompts, results)]
    recomputed = engine.logprobs({"sequences": sequences})["logprobs"]
    for p, r, lp in zip(prompts, results, recomputed):
        assert len(r["tokenIds"]) == len(r["logprobs"]) > 0
        assert lp[0] == 0.0 and len(lp) == len(p) + len(r["tokenIds"])
        assert max(abs(a - b) for a, b in zip(lp[len(p) :], r["logprobs"])) < 1e-4
    # batching does not change a request's output: the same request alone gives the same tokens
    alone = gen(engine, {"promptIds": prompts[1], "maxTokens": 24, "seed": 1, **settings[1]})[0]
    assert alone["tokenIds"] == results[1]["tokenIds"]


def test_seeded_sampling_is_deterministic(engine: Engine) -> None:
    p = prompt(engine)
    request = {"promptIds": p, "maxTokens": 20, "temperature": 1.0, "seed": 123}
    a, b = gen(engine, request)[0], gen(engine, request)[0]
    c = gen(engine, {**request, "seed": 124})[0]
    assert a["tokenIds"] == b["tokenIds"] and a["logprobs"] == b["logprobs"]
    assert a["tokenIds"] != c["tokenIds"]  # an untrained model samples almost uniformly
    greedy = [
        gen(engine, {"promptIds": p, "maxTokens": 10, "temperature": 0, "seed": s})[0]["tokenIds"] for s in (1, 2)
    ]
    assert greedy[0] == greedy[1]


def test_stop_ids_and_finish_reasons(engine: Engine) -> None:
    p = prompt(engine)
    greedy = gen(engine, {"promptIds": p, "maxTokens": 6, "temperature": 0})[0]
    assert greedy["finishReason"] == "length" and len(greedy["tokenIds"]) == 6
    stop_at = greedy["tokenIds"][2]
    first = greedy["tokenIds"].index(stop_at)
    stopped = gen(engine, {"promptIds": p, "maxTokens": 6, "temperature": 0, "stopIds": [stop_at]})[0]
    assert stopped["finishReason"] == "stop"
    assert stopped["tokenIds"] == greedy["tokenIds"][: first + 1]  # includes the stop token
    empty = gen(engine, {"promptIds": p, "maxTokens": 0, "temperature": 0})[0]
    assert {k: empty[k] for k in ("tokenIds", "logprobs", "finishReason", "text")} == {
        "tokenIds": [],
        "logprobs": [],
        "finishReason": "length",
        "text": "",
    }
    assert empty["promptTokens"] == len(p) and empty["cachedTokens"] == 0


def test_default_stop_is_eos_and_text_drops_special_tokens(engine: Engine) -> None:
    tok = engine.loaded.tokenizer
    assert engine.info()["eosTokenIds"] == [tok.eos_token_id]

    calls = []

    def push_eos(module: Any, inputs: Any, logits: torch.Tensor) -> torch.Tensor:
        calls.append(1)
        if len(calls) > 1:  # decode steps only, not the prefill
            logits = logits.clone()
            logits[..., tok.eos_token_id] += 1000.0
        return logits

    handle = engine.loaded.model.lm_head.register_forward_hook(push_eos)
    try:
        r = gen(engine, {"promptIds": prompt(engine), "maxTokens": 5, "temperature": 0})[0]
    finally:
        handle.remove()
    assert r["finishReason"] == "stop" and len(r["tokenIds"]) == 2 and r["tokenIds"][-1] == tok.eos_token_id
    assert r["text"] == tok.decode(r["tokenIds"][:1]) and "<|im_end|>" not in r["text"]


def test_max_tokens_clamped_to_context(engine: Engine) -> None:
    context = engine.info()["contextLength"]
    long_prompt = (prompt(engine) * 100)[: context - 3]
    r = gen(
        engine,
        {"promptIds": long_prompt, "maxTokens": 100, "temperature": 1.0, "seed": 0},
        {"promptIds": prompt(engine), "maxTokens": 5, "temperature": 1.0, "seed": 0},
    )
    assert len(r[0]["tokenIds"]) <= 3 and (r[0]["finishReason"] == "stop" or len(r[0]["tokenIds"]) == 3)
    assert len(r[1]["tokenIds"]) <= 5
    with pytest.raises(EngineError) as info:
        gen(engine, {"promptIds": (prompt(engine) * 100)[:context], "maxTokens": 1, "temperature": 0})
    assert info.value.type == "context_overflow" and "requests[0].promptIds" in info.value.message


@pytest.mark.parametrize(
    "request_, field",
    [
        ({"maxTokens": 1, "temperature": 0}, "requests[0].promptIds"),
        ({"promptIds": [], "maxTokens": 1, "temperature": 0}, "requests[0].promptIds"),
        ({"promptIds": [1, 99999], "maxTokens": 1, "temperature": 0}, "requests[0].promptIds[1]"),
        ({"promptIds": [1], "maxTokens": -1, "temperature": 0}, "requests[0].maxTokens"),
        ({"promptIds": [1], "maxTokens": 1, "temperature": -0.5}, "requests[0].temperature"),
        ({"promptIds": [1], "maxTokens": 1, "temperature": 1, "topP": 0}, "requests[0].topP"),
        ({"promptIds": [1], "maxTokens": 1, "temperature": 1, "stopIds": "x"}, "requests[0].stopIds"),
    ],
)
def test_generate_invalid_params(engine: Engine, request_: dict[str, Any], field: str) -> None:
    with pytest.raises(EngineError) as info:
        gen(engine, request_)
    assert info.value.type == "invalid_params" and info.value.message.startswith(field + ":")


def test_not_loaded_is_a_state_error() -> None:
    with pytest.raises(EngineError) as info:
        Engine(threads=1).generate({"requests": []})
    assert (info.value.type, info.value.code) == ("state", "not_loaded")


def test_bf16_autocast_path_on_cpu(make_engine: Any) -> None:
    """The CUDA configuration (bf16 compute over fp32 master weights, fp32 logits) exercised on CPU."""
    engine = make_engine(dtype="bfloat16")
    assert engine.info()["dtype"] == "bfloat16"
    assert engine.loaded.model.lm_head.weight.dtype == torch.float32  # master weights stay fp32
    p = prompt(engine)
    r = gen(engine, {"promptIds": p, "maxTokens": 12, "temperature": 1.0, "seed": 0})[0]
    lp = engine.logprobs({"sequences": [{"tokenIds": p + r["tokenIds"]}]})["logprobs"][0]
    assert max(abs(a - b) for a, b in zip(lp[len(p) :], r["logprobs"])) < 0.05
    ids = p + r["tokenIds"]
    stats = engine.train_step(
        {
            "samples": [
                {
                    "tokenIds": ids,
                    "lossMask": [0] * len(p) + [1] * len(r["tokenIds"]),
                    "advantages": 1.0,
                    "rolloutLogprobs": lp,
                }
            ],
            "hyper": {"lr": 1e-3, "klCoef": 0.1},
        }
    )
    assert stats["weightVersion"] == 1 and abs(stats["klLoss"]) < 1e-3


def test_a_model_the_continuous_path_cannot_reproduce_falls_back_to_static(make_engine: Any, monkeypatch: Any) -> None:
    from agentjet_engine import attention

    def broken(module: Any, query: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        return torch.zeros_like(query).transpose(1, 2), None

    monkeypatch.setitem(attention.AttentionInterface._global_mapping, attention.NAME, broken)
    engine = make_engine()
    summary = engine.info()["serving"]
    assert summary["continuous"] is False and summary["fallback"].startswith("self-check failed")
    p = prompt(engine)
    r = gen(engine, {"promptIds": p, "maxTokens": 6, "temperature": 1.0, "seed": 2})[0]
    lp = engine.logprobs({"sequences": [{"tokenIds": p + r["tokenIds"]}]})["logprobs"][0]
    assert max(abs(a - b) for a, b in zip(lp[len(p) :], r["logprobs"])) < 1e-4
