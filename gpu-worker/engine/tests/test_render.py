"""`render`: template text, token ids and per-message spans that reproduce each message exactly."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agentjet_engine import builtin
from agentjet_engine.engine import Engine
from agentjet_engine.errors import EngineError
from agentjet_engine.rendering import GENERATION_PROMPT, NO_MESSAGE, common_prefix_length, spans_from_boundaries
from corpus import CALC_TOOL

CONVERSATION: list[dict[str, Any]] = [
    {"role": "user", "content": "What is 12 + 30? 你好 🙂"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "calc", "arguments": '{"expression": "12+30"}'}}
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "42"},
    {"role": "assistant", "content": "12 + 30 = 42 🎉"},
]


def parsed(message: dict[str, Any]) -> dict[str, Any]:
    """The message as the template sees it (tool-call arguments parsed to objects)."""
    out = dict(message)
    if "tool_calls" in out:
        out["tool_calls"] = [
            {**c, "function": {**c["function"], "arguments": json.loads(c["function"]["arguments"])}}
            for c in out["tool_calls"]
        ]
    return out


def check_cover(spans: list[dict[str, Any]], n: int) -> None:
    assert spans[0]["start"] == 0 and spans[-1]["end"] == n
    for a, b in zip(spans, spans[1:]):
        assert a["end"] == b["start"]


@pytest.mark.parametrize("with_system", [False, True])
def test_spans_reproduce_each_message(engine: Engine, with_system: bool) -> None:
    messages = ([{"role": "system", "content": "Be exact."}] if with_system else []) + CONVERSATION
    out = engine.render({"messages": messages, "tools": [CALC_TOOL]})
    tok = engine.loaded.tokenizer
    ids, spans = out["tokenIds"], out["spans"]
    assert out["text"] == builtin.render_text([parsed(m) for m in messages], [CALC_TOOL], add_generation_prompt=True)
    assert ids == tok(out["text"], add_special_tokens=False)["input_ids"]
    check_cover(spans, len(ids))

    def piece(span: dict[str, Any]) -> str:
        return tok.decode(ids[span["start"] : span["end"]], skip_special_tokens=False)

    by_index = {s["messageIndex"]: s for s in spans}
    if with_system:  # the tools block lives inside the system message's own turn
        assert NO_MESSAGE not in by_index
        assert piece(by_index[0]) == builtin.render_text([messages[0]], [CALC_TOOL])
    else:  # a tools-only system turn belongs to no message
        tools_turn = builtin.render_text([CONVERSATION[0]], [CALC_TOOL]).split("<|im_start|>user")[0]
        assert piece(by_index[NO_MESSAGE]) == tools_turn
    for i, message in enumerate(messages):
        if with_system and i == 0:
            continue
        own = builtin.render_text([parsed(message)])
        assert piece(by_index[i]) == own
        assert ids[by_index[i]["start"] : by_index[i]["end"]] == tok(own, add_special_tokens=False)["input_ids"]
        assert by_index[i]["role"] == message["role"]
    assert piece(by_index[GENERATION_PROMPT]) == "<|im_start|>assistant\n"
    assert spans[-1]["role"] == "generation_prompt"


def test_render_without_generation_prompt(engine: Engine) -> None:
    out = engine.render({"messages": CONVERSATION[:1], "addGenerationPrompt": False})
    assert out["text"] == "<|im_start|>user\nWhat is 12 + 30? 你好 🙂<|im_end|>\n"
    assert out["spans"] == [{"messageIndex": 0, "role": "user", "start": 0, "end": len(out["tokenIds"])}]


def test_common_prefix_and_monotone_boundaries() -> None:
    assert common_prefix_length([1, 2, 3], [1, 2, 4, 5]) == 2
    assert common_prefix_length([], [1]) == 0
    # a later boundary that falls behind an earlier one (template re-rendered history) is clamped
    spans = spans_from_boundaries(2, [5, 4, 9], 12, ["user", "assistant", "user"], generation_prompt=True)
    assert [(s["messageIndex"], s["start"], s["end"]) for s in spans] == [
        (NO_MESSAGE, 0, 2),
        (0, 2, 5),
        (1, 5, 5),
        (2, 5, 9),
        (GENERATION_PROMPT, 9, 12),
    ]
    trailing = spans_from_boundaries(0, [3], 5, ["user"], generation_prompt=False)
    assert trailing[-1] == {"messageIndex": NO_MESSAGE, "role": "template", "start": 3, "end": 5}


def test_spans_cover_with_a_template_that_rewrites_history(engine: Engine) -> None:
    # Like Qwen3: earlier assistant turns drop their <think> part, the final one keeps it.
    tok = engine.loaded.tokenizer
    tok.chat_template = (
        "{%- for m in messages %}{{- '<|im_start|>' + m.role + '\\n' }}"
        "{%- if m.role == 'assistant' and not loop.last %}{{- m.content.split('</think>')[-1] }}"
        "{%- else %}{{- m.content }}{%- endif %}{{- '<|im_end|>\\n' }}{%- endfor %}"
        "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
    )
    messages = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "<think>x</think>b"},
        {"role": "user", "content": "c"},
    ]
    out = engine.render({"messages": messages})
    check_cover(out["spans"], len(out["tokenIds"]))
    first = out["spans"][0]
    assert tok.decode(out["tokenIds"][first["start"] : first["end"]]) == "<|im_start|>user\na<|im_end|>\n"


@pytest.mark.parametrize(
    "params, field",
    [
        ({}, "messages"),
        ({"messages": []}, "messages"),
        ({"messages": [{"role": "robot", "content": "x"}]}, "messages[0].role"),
        ({"messages": [{"role": "user", "content": 5}]}, "messages[0].content"),
        (
            {"messages": [{"role": "assistant", "content": None, "tool_calls": [{"type": "function"}]}]},
            "messages[0].tool_calls[0].function",
        ),
        ({"messages": [{"role": "user", "content": "x"}], "tools": "calc"}, "tools"),
        ({"messages": [{"role": "user", "content": "x"}], "addGenerationPrompt": "yes"}, "addGenerationPrompt"),
    ],
)
def test_render_invalid_params_name_the_field(engine: Engine, params: dict[str, Any], field: str) -> None:
    with pytest.raises(EngineError) as info:
        engine.render(params)
    assert info.value.type == "invalid_params"
    assert info.value.message.startswith(field + ":")


def exact_spans(engine: Engine, messages: list[dict[str, Any]], tools: Any, add_prompt: bool = True) -> list[Any]:
    """Spans by the definition: render every prefix (what the fast path must agree with)."""
    from agentjet_engine import rendering

    renderer = engine.renderer
    saved = renderer._fast_ends
    renderer._fast_ends = lambda *a, **k: None  # type: ignore[method-assign]
    try:
        return rendering.Renderer.render(
            renderer, rendering.normalise_messages(messages), rendering.normalise_tools(tools), add_prompt
        )["spans"]
    finally:
        renderer._fast_ends = saved  # type: ignore[method-assign]


def test_linear_spans_equal_the_prefix_definition_on_the_corpus(engine: Engine, corpus: list) -> None:
    for t in corpus[:60]:
        for add_prompt in (True, False):
            before = engine.renderer.fallbacks
            fast = engine.render({"messages": t["messages"], "tools": t["tools"], "addGenerationPrompt": add_prompt})
            assert engine.renderer.fallbacks == before  # the built-in template never needs the fallback
            assert fast["spans"] == exact_spans(engine, t["messages"], t["tools"], add_prompt)


def test_render_cost_does_not_grow_with_the_square_of_the_messages(engine: Engine, monkeypatch: Any) -> None:
    calls = {"n": 0}
    original = engine.loaded.tokenizer.apply_chat_template

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(engine.loaded.tokenizer, "apply_chat_template", counting)
    messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": str(i % 10)} for i in range(40)]
    out = engine.render({"messages": messages})
    check_cover(out["spans"], len(out["tokenIds"]))
    assert len([s for s in out["spans"] if s["messageIndex"] >= 0]) == 40
    assert calls["n"] <= 1 + 3  # the render without generation prompt and the three checks, not 40


def test_oversized_conversations_are_refused_before_rendering(engine: Engine, monkeypatch: Any) -> None:
    def no_render(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("rendered a conversation that cannot fit")

    monkeypatch.setattr(engine.renderer, "_tracked_text", no_render)
    many = [{"role": "user", "content": "What is 2 + 2? Please answer."} for _ in range(10_000)]
    with pytest.raises(EngineError) as info:
        engine.render({"messages": many})
    assert info.value.type == "context_overflow"
    big_tool = {"type": "function", "function": {"name": "t", "description": "x" * 40_000, "parameters": {}}}
    with pytest.raises(EngineError) as info:
        engine.render({"messages": [{"role": "user", "content": "hi"}], "tools": [big_tool] * 128})
    assert info.value.type == "context_overflow"


def test_a_prompt_over_the_context_is_refused_after_tokenizing(engine: Engine) -> None:
    context = engine.info()["contextLength"]
    with pytest.raises(EngineError) as info:
        engine.render({"messages": [{"role": "user", "content": "12 " * context}]})
    assert info.value.type == "context_overflow" and "messages" in info.value.message
