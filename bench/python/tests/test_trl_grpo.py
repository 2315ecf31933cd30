"""The TRL arm's episode: the calculator client's tool and reward, the prompt TRL renders, the schedule and the grid."""

from __future__ import annotations

from pathlib import Path

import pytest
from agentjet_bench import trl_grpo

MODEL_DIR = Path(__file__).resolve().parents[3] / "resources" / "models" / "agentjet-tiny"


def call(expression: str) -> dict[str, object]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"function": {"name": "calc", "arguments": {"expression": expression}}}],
    }


def test_the_tool_replies_as_the_client_does() -> None:
    assert trl_grpo.calc("3*4+1") == "13"
    assert trl_grpo.calc("7/2") == "3.5"
    assert trl_grpo.calc("1/0") == "error: division by zero"
    assert trl_grpo.calc("__import__('os')") == "error: invalid expression"


def test_an_episode_succeeds_only_on_a_final_answer_line_with_the_tasks_answer() -> None:
    tool = {"role": "tool", "name": "calc", "content": "13"}
    answered = {"role": "assistant", "content": "The total is 13.\n#### 13"}
    assert trl_grpo.episode_success([call("3*4+1"), tool, answered], 13.0)
    assert not trl_grpo.episode_success([call("3*4+1"), tool, answered], 12.0)
    # The last turn still calls the tool (the turn limit ran out): no answer.
    assert not trl_grpo.episode_success([call("3*4+1"), tool, call("13")], 13.0)
    # The answer must be the last line.
    assert not trl_grpo.episode_success([{"role": "assistant", "content": "#### 13\nthanks"}], 13.0)
    assert trl_grpo.calc_reward([[answered], [call("1")]], answer=[13.0, 1.0]) == [1.0, 0.0]


def test_the_prompt_lists_the_tool_as_the_worker_renders_it() -> None:
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(MODEL_DIR)
    row = trl_grpo.prompts([{"question": "What is 2+2?", "answer": 4}])[0]
    assert row["answer"] == 4.0
    text = tok.apply_chat_template(
        row["prompt"], tools=[trl_grpo.CLIENT.CALC_TOOL], tokenize=False, add_generation_prompt=True
    )
    expected_tool = (
        '{"type": "function", "function": {"name": "calc", "description": "Evaluate an arithmetic expression.", '
        '"parameters": {"type": "object", "properties": {"expression": {"type": "string"}}, '
        '"required": ["expression"]}}}'
    )
    assert f"<tools>\n{expected_tool}\n</tools>" in text
    assert text.endswith("What is 2+2?<|im_end|>\n<|im_start|>assistant\n")


def test_the_learning_rate_decays_linearly_over_the_budget_then_holds() -> None:
    assert trl_grpo.lr_at(0, 10, 3.5e-4, 1e-4) == pytest.approx(3.5e-4)
    assert trl_grpo.lr_at(5, 10, 3.5e-4, 1e-4) == pytest.approx(2.25e-4)
    assert trl_grpo.lr_at(12, 10, 3.5e-4, 1e-4) == pytest.approx(1e-4)


def test_the_save_grid_stops_before_the_end() -> None:
    assert trl_grpo._grid(5, 10) == [5]
    assert trl_grpo._grid(2.5, 10) == [2.5, 5, 7.5]
    assert trl_grpo._grid(0, 10) == []
