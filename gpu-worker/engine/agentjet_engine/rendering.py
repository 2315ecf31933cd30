"""Chat rendering: OpenAI messages → the model's own chat template → token ids with per-message spans."""

from __future__ import annotations

import json
from typing import Any

from transformers.utils.chat_template_utils import render_jinja_template

from . import params as P
from .errors import invalid

ROLES = ("system", "user", "assistant", "tool")
NO_MESSAGE = -1          # template text that belongs to no message (e.g. a tools-only system turn)
GENERATION_PROMPT = -2   # the `<|im_start|>assistant\n` header appended by add_generation_prompt


def normalise_tool_call(call: Any, field: str) -> dict[str, Any]:
    """OpenAI `{id, type, function: {name, arguments: "json"}}` → same shape with parsed arguments.

    HF templates expect `arguments` to be an object; a string that is not a JSON object is kept raw.
    """
    call = P.obj(call, field)
    function = P.obj(call.get("function"), f"{field}.function")
    name = P.get_str(function, "name", f"{field}.function")
    arguments = function.get("arguments", {})
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            arguments = parsed
    elif arguments is None:
        arguments = {}
    elif not isinstance(arguments, dict):
        raise invalid(f"{field}.function.arguments", "must be a JSON string or an object", "wrong_type")
    out = {k: v for k, v in call.items() if k != "function"}
    out.setdefault("type", "function")
    out["function"] = {**function, "name": name, "arguments": arguments}
    return out


def normalise_messages(raw: Any) -> list[dict[str, Any]]:
    """Validate OpenAI chat messages; unknown keys are kept for templates that use them."""
    if not isinstance(raw, list) or not raw:
        raise invalid("messages", "must be a non-empty array of chat messages")
    messages = []
    for i, message in enumerate(raw):
        field = f"messages[{i}]"
        message = dict(P.obj(message, field))
        P.get_str(message, "role", field, choices=ROLES)
        content = message.get("content")
        if content is not None and not isinstance(content, str):
            raise invalid(f"{field}.content", "must be a string or null", "wrong_type")
        message["content"] = content
        calls = message.get("tool_calls")
        if calls is not None:
            calls = P.get_list(message, "tool_calls", field)
            if calls:
                message["tool_calls"] = [normalise_tool_call(c, f"{field}.tool_calls[{j}]")
                                         for j, c in enumerate(calls)]
            else:
                del message["tool_calls"]
        for key in ("tool_call_id", "name"):
            if message.get(key) is not None and not isinstance(message[key], str):
                raise invalid(f"{field}.{key}", "must be a string", "wrong_type")
        messages.append(message)
    return messages


def normalise_tools(raw: Any) -> list[dict[str, Any]] | None:
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise invalid("tools", "must be an array of tool schemas or null", "wrong_type")
    for i, tool in enumerate(raw):
        P.obj(tool, f"tools[{i}]")
    return raw or None


def common_prefix_length(a: list[int], b: list[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def spans_from_boundaries(start: int, ends: list[int], total: int, roles: list[str],
                          generation_prompt: bool) -> list[dict[str, Any]]:
    """Contiguous spans covering [0, total): optional leading no-message span, one per message,
    then the generation prompt (or trailing template text) span. Boundaries are made monotone."""
    spans: list[dict[str, Any]] = []
    if start > 0:
        spans.append({"messageIndex": NO_MESSAGE, "role": "system", "start": 0, "end": start})
    cursor = start
    for i, end in enumerate(ends):
        end = min(max(end, cursor), total)
        spans.append({"messageIndex": i, "role": roles[i], "start": cursor, "end": end})
        cursor = end
    if generation_prompt:
        spans.append({"messageIndex": GENERATION_PROMPT, "role": "generation_prompt", "start": cursor,
                      "end": total})
    elif cursor < total:
        spans.append({"messageIndex": NO_MESSAGE, "role": "template", "start": cursor, "end": total})
    return spans


class Renderer:
    """Renders conversations with a tokenizer's chat template and locates each message's tokens."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer

    def text(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
             add_generation_prompt: bool) -> str:
        return self.tokenizer.apply_chat_template(messages, tools=tools, tokenize=False,
                                                  add_generation_prompt=add_generation_prompt)

    def encode(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def _empty_prefix(self, tools: list[dict[str, Any]] | None) -> list[int] | None:
        """Tokens the template emits for zero messages (e.g. a tools-only system turn), if it can."""
        try:
            template = self.tokenizer.get_chat_template(None, tools)
            rendered, _ = render_jinja_template(conversations=[[]], tools=tools, chat_template=template,
                                                add_generation_prompt=False,
                                                **self.tokenizer.special_tokens_map)
        except Exception:  # templates may index messages[0]; then no message-less prefix exists
            return None
        return self.encode(rendered[0])

    def render(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
               add_generation_prompt: bool = True) -> dict[str, Any]:
        """`{tokenIds, spans, text}`; spans come from rendering growing prefixes of the conversation.

        A message ends where the rendering of the conversation up to it stops agreeing with the full
        rendering (longest common token prefix), which also copes with templates that render a
        message differently once later messages follow it.
        """
        text = self.text(messages, tools, add_generation_prompt)
        ids = self.encode(text)
        empty = self._empty_prefix(tools)
        # The message-less prefix only counts when it is an exact prefix: with a system message the
        # tools block belongs to that message's turn.
        start = len(empty) if empty and ids[: len(empty)] == empty else 0
        ends = []
        for k in range(1, len(messages) + 1):
            prefix = ids if (k == len(messages) and not add_generation_prompt) else \
                self.encode(self.text(messages[:k], tools, False))
            ends.append(common_prefix_length(prefix, ids))
        spans = spans_from_boundaries(start, ends, len(ids), [m["role"] for m in messages], add_generation_prompt)
        return {"tokenIds": ids, "spans": spans, "text": text}
