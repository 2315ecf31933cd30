"""Chat rendering: OpenAI messages → the model's own chat template → token ids with per-message spans."""

from __future__ import annotations

import bisect
import json
from typing import Any

from transformers.utils.chat_template_utils import _compile_jinja_template, render_jinja_template

from . import params as P
from .errors import context_overflow, invalid
from .framing import MAX_DEPTH, nesting_depth

ROLES = ("system", "user", "assistant", "tool")
NO_MESSAGE = -1  # template text that belongs to no message (e.g. a tools-only system turn)
GENERATION_PROMPT = -2  # the `<|im_start|>assistant\n` header appended by add_generation_prompt


def normalise_tool_call(call: Any, field: str, arguments_as_text: bool = False) -> dict[str, Any]:
    """OpenAI `{id, type, function: {name, arguments: "json"}}` → same shape with parsed arguments.

    HF templates expect `arguments` to be an object; a string that is not a JSON object is kept raw.
    With `arguments_as_text` (templates that concatenate them into the text, e.g. DeepSeek-V3's)
    `arguments` is JSON text: the client's string as sent, an object serialised.
    """
    call = P.obj(call, field)
    function = P.obj(call.get("function"), f"{field}.function")
    name = P.get_str(function, "name", f"{field}.function")
    arguments = function.get("arguments", {})
    if isinstance(arguments, str):
        depth = nesting_depth(arguments)
        if depth > MAX_DEPTH:
            raise invalid(
                f"{field}.function.arguments",
                f"nests {depth} levels deep; at most {MAX_DEPTH} are accepted",
                "too_deep",
            )
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
    if arguments_as_text:
        raw = function.get("arguments")
        arguments = raw if isinstance(raw, str) else json.dumps(arguments, ensure_ascii=False)
    out = {k: v for k, v in call.items() if k != "function"}
    out.setdefault("type", "function")
    out["function"] = {**function, "name": name, "arguments": arguments}
    return out


def normalise_messages(raw: Any, arguments_as_text: bool = False) -> list[dict[str, Any]]:
    """Validate OpenAI chat messages; unknown keys are kept for templates that use them.

    An assistant turn's `content: null` becomes "" (templates such as Qwen3's string-process it),
    except with `arguments_as_text`: DeepSeek-V3's template tells a tool-call turn by `content is none`.
    """
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
        if content is None and message["role"] == "assistant" and not arguments_as_text:
            content = ""
        message["content"] = content
        calls = message.get("tool_calls")
        if calls is not None:
            calls = P.get_list(message, "tool_calls", field)
            if calls:
                message["tool_calls"] = [
                    normalise_tool_call(c, f"{field}.tool_calls[{j}]", arguments_as_text) for j, c in enumerate(calls)
                ]
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


def spans_from_boundaries(
    start: int, ends: list[int], total: int, roles: list[str], generation_prompt: bool
) -> list[dict[str, Any]]:
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
        spans.append({"messageIndex": GENERATION_PROMPT, "role": "generation_prompt", "start": cursor, "end": total})
    elif cursor < total:
        spans.append({"messageIndex": NO_MESSAGE, "role": "template", "start": cursor, "end": total})
    return spans


# Span verification and its bounded fallback (see `Renderer.render`).
VERIFY_SAMPLES = 3
EXACT_FALLBACK_MAX_MESSAGES = 64


class _Emitted:
    """Characters the template has emitted so far, and where each message was first read."""

    def __init__(self) -> None:
        self.chars = 0
        self.starts: dict[int, int] = {}

    def read(self, index: int) -> None:
        if index not in self.starts:
            self.starts[index] = self.chars


class _TrackedMessage(dict):  # type: ignore[type-arg]
    """A message as the template's main loop sees it: any read records where its output begins."""

    def __init__(self, raw: dict[str, Any], index: int, emitted: _Emitted) -> None:
        super().__init__(raw)
        self._index, self._emitted = index, emitted

    def _seen(self) -> None:
        self._emitted.read(self._index)

    def __getitem__(self, key: Any) -> Any:
        self._seen()
        return super().__getitem__(key)

    def get(self, key: Any, default: Any = None) -> Any:
        self._seen()
        return super().get(key, default)

    def __contains__(self, key: Any) -> bool:
        self._seen()
        return super().__contains__(key)

    def items(self) -> Any:
        self._seen()
        return super().items()

    def keys(self) -> Any:
        self._seen()
        return super().keys()

    def values(self) -> Any:
        self._seen()
        return super().values()


class _TrackedMessages(list):  # type: ignore[type-arg]
    """`messages` for the template: iterating (the main loop) yields tracked messages; indexing,
    slicing and reversing (look-ups, look-aheads, `messages[::-1]`) give the plain ones."""

    def __init__(self, messages: list[dict[str, Any]], emitted: _Emitted) -> None:
        super().__init__(messages)
        self._emitted = emitted

    def __iter__(self) -> Any:
        for i in range(len(self)):
            yield _TrackedMessage(list.__getitem__(self, i), i, self._emitted)


def max_token_chars(tokenizer: Any) -> int:
    """An upper bound on the characters one token stands for (vocabulary strings are ≥ their text)."""
    vocab = tokenizer.get_vocab()
    return max(1, max((len(t) for t in vocab), default=1))


def input_chars(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> int:
    total = len(json.dumps(tools, ensure_ascii=False)) if tools else 0
    for m in messages:
        total += len(m.get("content") or "")
        for call in m.get("tool_calls") or []:
            total += len(json.dumps(call.get("function", {}), ensure_ascii=False))
    return total


class Renderer:
    """Renders conversations with a tokenizer's chat template and locates each message's tokens."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self._max_token_chars: int | None = None
        self.fallbacks = 0  # renders whose fast spans failed verification

    @property
    def token_chars(self) -> int:
        if self._max_token_chars is None:
            self._max_token_chars = max_token_chars(self.tokenizer)
        return self._max_token_chars

    def text(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, add_generation_prompt: bool
    ) -> str:
        return self.tokenizer.apply_chat_template(
            messages, tools=tools, tokenize=False, add_generation_prompt=add_generation_prompt
        )

    def encode(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def _empty_prefix(self, tools: list[dict[str, Any]] | None) -> list[int] | None:
        """Tokens the template emits for zero messages (e.g. a tools-only system turn), if it can."""
        try:
            template = self.tokenizer.get_chat_template(None, tools)
            rendered, _ = render_jinja_template(
                conversations=[[]],
                tools=tools,
                chat_template=template,
                add_generation_prompt=False,
                **self.tokenizer.special_tokens_map,
            )
        except Exception:  # templates may index messages[0]; then no message-less prefix exists
            return None
        return self.encode(rendered[0])

    def _tracked_text(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, add_generation_prompt: bool
    ) -> tuple[str, dict[int, int]]:
        """One streamed render: the text and, per message, the character where its output begins
        (the first read of the message by the template's main loop)."""
        template = _compile_jinja_template(self.tokenizer.get_chat_template(None, tools))
        emitted = _Emitted()
        chunks: list[str] = []
        for chunk in template.generate(
            messages=_TrackedMessages(messages, emitted),
            tools=tools,
            documents=None,
            add_generation_prompt=add_generation_prompt,
            **self.tokenizer.special_tokens_map,
        ):
            chunks.append(chunk)
            emitted.chars += len(chunk)
        return "".join(chunks), emitted.starts

    def _check_size(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, context_length: int | None
    ) -> None:
        if context_length is None:
            return
        # Templates may drop some text (e.g. old reasoning), hence the factor 4 on the bound.
        estimate = input_chars(messages, tools) // (4 * self.token_chars)
        if estimate > context_length:
            raise context_overflow("messages", estimate, context_length)

    def _exact_end(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, k: int, ids: list[int]
    ) -> int:
        """Where message k ends: where rendering the conversation up to it stops agreeing with `ids`."""
        return common_prefix_length(self.encode(self.text(messages[: k + 1], tools, False)), ids)

    def render(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        add_generation_prompt: bool = True,
        context_length: int | None = None,
    ) -> dict[str, Any]:
        """`{tokenIds, spans, text}` in time linear in the conversation.

        A message ends where the rendering of the conversation up to it stops agreeing with the full
        rendering (longest common token prefix), which also copes with templates that render a
        message differently once later messages follow it. Rather than rendering every prefix, one
        streamed render records where the template's main loop first reads each message (message
        k − 1 ends there); the last message ends where the render without the generation prompt
        stops agreeing. A few boundaries are then checked against the exact definition; when one
        disagrees (an unusual template), short conversations fall back to rendering every prefix and
        longer ones keep the fast spans (counted in `fallbacks`).

        With `context_length`, a conversation that cannot fit is refused (`context_overflow`) before
        the expensive steps: from its size before rendering, from the rendered text's length before
        tokenizing, and from the token count before the spans.
        """
        self._check_size(messages, tools, context_length)
        text, starts = self._tracked_text(messages, tools, add_generation_prompt)
        if context_length is not None and len(text) // self.token_chars > context_length:
            raise context_overflow("messages", len(text) // self.token_chars, context_length)
        encoding = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        ids = list(encoding["input_ids"])
        if context_length is not None and len(ids) > context_length:
            raise context_overflow("messages", len(ids), context_length)
        token_ends = [end for _, end in encoding["offset_mapping"]]
        n = len(messages)
        empty = self._empty_prefix(tools)
        # The message-less prefix only counts when it is an exact prefix: with a system message the
        # tools block belongs to that message's turn.
        start = len(empty) if empty and ids[: len(empty)] == empty else 0
        ends = self._fast_ends(messages, tools, add_generation_prompt, ids, starts, token_ends)
        if ends is None or not self._verified(messages, tools, ids, ends):
            self.fallbacks += 1
            if n <= EXACT_FALLBACK_MAX_MESSAGES or ends is None:
                ends = [
                    self._exact_end(messages, tools, k, ids) if (k < n - 1 or add_generation_prompt) else len(ids)
                    for k in range(n)
                ]
        spans = spans_from_boundaries(start, ends, len(ids), [m["role"] for m in messages], add_generation_prompt)
        return {"tokenIds": ids, "spans": spans, "text": text}

    def _fast_ends(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        add_generation_prompt: bool,
        ids: list[int],
        starts: dict[int, int],
        token_ends: list[int],
    ) -> list[int] | None:
        n = len(messages)
        if any(k not in starts for k in range(1, n)):
            return None
        chars = [starts[k] for k in range(1, n)]
        if any(b < a for a, b in zip(chars, chars[1:])):
            return None
        ends = [bisect.bisect_right(token_ends, c) for c in chars]
        if add_generation_prompt:
            last = common_prefix_length(self.encode(self.text(messages, tools, False)), ids)
        else:
            last = len(ids)
        return [*ends, last]

    def _verified(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, ids: list[int], ends: list[int]
    ) -> bool:
        n = len(messages)
        picks = sorted({k for k in (n - 2, n // 2, (n * 7919) % max(1, n - 1)) if 0 <= k < n - 1})[:VERIFY_SAMPLES]
        return all(self._exact_end(messages, tools, k, ids) == ends[k] for k in picks)
