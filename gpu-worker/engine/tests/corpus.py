"""A small synthetic chat corpus (calculator tool use, chit-chat, some CJK and emoji) for the tests."""

from __future__ import annotations

import json
import random
from typing import Any

CALC_TOOL = {
    "type": "function",
    "function": {
        "name": "calc",
        "description": "Evaluate an arithmetic expression.",
        "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]},
    },
}

GREETINGS = ["Hello!", "Hi there.", "你好！", "Good morning 🙂", "Hey, how are you?"]
REPLIES = [
    "Hello! How can I help?",
    "Hi! What do you need?",
    "你好！有什么可以帮你？",
    "Morning! 🌞 Ready when you are.",
]


def transcript(rng: random.Random) -> dict[str, Any]:
    """One conversation in the JSONL shape that pretrain reads: {messages, tools}."""
    if rng.random() < 0.3:
        return {
            "messages": [
                {"role": "user", "content": rng.choice(GREETINGS)},
                {"role": "assistant", "content": rng.choice(REPLIES)},
            ],
            "tools": None,
        }
    a, b = rng.randint(0, 999), rng.randint(0, 999)
    op = rng.choice(["+", "-", "*"])
    value = eval(f"{a}{op}{b}")  # noqa: S307 - our own digits and operator
    messages: list[dict[str, Any]] = []
    if rng.random() < 0.5:
        messages.append({"role": "system", "content": "You are a careful calculator assistant."})
    messages += [
        {"role": "user", "content": f"What is {a} {op} {b}?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "calc", "arguments": json.dumps({"expression": f"{a}{op}{b}"})},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": str(value)},
        {"role": "assistant", "content": f"{a} {op} {b} = {value}"},
    ]
    return {"messages": messages, "tools": [CALC_TOOL]}


def transcripts(n: int, seed: int = 0) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [transcript(rng) for _ in range(n)]
