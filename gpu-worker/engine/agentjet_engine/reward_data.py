"""Reward-model data: the labels dataset (JSONL), conversation rendering and tokenization, the held-out split.

A dataset file has one JSON object per line, of three kinds:

    {"kind": "conversation", "id": "ep-1", "group": "calc-train-12", "messages": [...], "tools": [...] | null}
    {"kind": "point", "id": "ep-1", "label": 1}                 # 1: good, 0: bad
    {"kind": "pair", "chosen": "ep-1", "rejected": "ep-2"}      # ep-1 preferred over ep-2

Conversations are rendered with the reward model's chat template (tool-call `arguments` as the JSON text
the model wrote, no generation prompt) and tokenized without added special tokens; a conversation longer
than `max_length` keeps its last `max_length` tokens. The Node scorer (src/sdk/reward-model-text.ts) does
exactly the same, so a conversation gets the same token ids on both sides.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from typing import Any

ROLES = ("system", "user", "assistant", "tool")


class DatasetError(ValueError):
    """A dataset problem; the message names the file and line."""


@dataclass
class Conversation:
    id: str
    group: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None


@dataclass
class Dataset:
    conversations: dict[str, Conversation] = field(default_factory=dict)
    points: list[tuple[str, int]] = field(default_factory=list)  # (conversation id, label 0/1)
    pairs: list[tuple[str, str]] = field(default_factory=list)  # (chosen id, rejected id)


def _check_message(m: Any, where: str) -> dict[str, Any]:
    if not isinstance(m, dict):
        raise DatasetError(f"{where}: a message must be an object")
    if m.get("role") not in ROLES:
        raise DatasetError(f"{where}.role: must be one of {', '.join(ROLES)}")
    content = m.get("content")
    if content is not None and not isinstance(content, str):
        raise DatasetError(f"{where}.content: must be a string or null")
    calls = m.get("tool_calls")
    if calls is not None:
        if not isinstance(calls, list):
            raise DatasetError(f"{where}.tool_calls: must be an array")
        for j, c in enumerate(calls):
            fn = c.get("function") if isinstance(c, dict) else None
            if (
                not isinstance(fn, dict)
                or not isinstance(fn.get("name"), str)
                or not isinstance(fn.get("arguments"), str)
            ):
                raise DatasetError(f"{where}.tool_calls[{j}]: expected {{function: {{name, arguments: string}}}}")
    return m


def parse_conversation(row: dict[str, Any], where: str) -> Conversation:
    cid, group = row.get("id"), row.get("group")
    if not isinstance(cid, str) or not cid:
        raise DatasetError(f"{where}.id: a non-empty string")
    if not isinstance(group, str):
        raise DatasetError(f"{where}.group: a string (the task id)")
    messages = row.get("messages")
    if not isinstance(messages, list) or not messages:
        raise DatasetError(f"{where}.messages: a non-empty array")
    tools = row.get("tools")
    if tools is not None and not isinstance(tools, list):
        raise DatasetError(f"{where}.tools: an array or null")
    return Conversation(
        cid, group, [_check_message(m, f"{where}.messages[{i}]") for i, m in enumerate(messages)], tools or None
    )


def read_dataset(path: str) -> Dataset:
    """Parses a dataset file; every problem is a DatasetError naming `path:line`."""
    data = Dataset()
    refs: list[tuple[str, str]] = []  # (where, id) to check once every conversation is known
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{path}:{n}"
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise DatasetError(f"{where}: invalid JSON ({exc})") from exc
            if not isinstance(row, dict):
                raise DatasetError(f"{where}: not a JSON object")
            kind = row.get("kind")
            if kind == "conversation":
                conv = parse_conversation(row, where)
                if conv.id in data.conversations:
                    raise DatasetError(f"{where}: conversation {conv.id!r} is defined twice")
                data.conversations[conv.id] = conv
            elif kind == "point":
                cid, label = row.get("id"), row.get("label")
                if not isinstance(cid, str) or label not in (0, 1) or isinstance(label, bool):
                    raise DatasetError(f"{where}: a point label is {{id: string, label: 0 | 1}}")
                data.points.append((cid, int(label)))
                refs.append((where, cid))
            elif kind == "pair":
                chosen, rejected = row.get("chosen"), row.get("rejected")
                if not isinstance(chosen, str) or not isinstance(rejected, str) or chosen == rejected:
                    raise DatasetError(f"{where}: a pair label is {{chosen: id, rejected: another id}}")
                data.pairs.append((chosen, rejected))
                refs += [(where, chosen), (where, rejected)]
            else:
                raise DatasetError(f"{where}.kind: one of conversation, point, pair")
    for where, cid in refs:
        if cid not in data.conversations:
            raise DatasetError(f"{where}: no conversation {cid!r} in the file")
    if not data.points and not data.pairs:
        raise DatasetError(f"{path}: no labels (point or pair lines)")
    return data


def implied_pairs(data: Dataset) -> list[tuple[str, str]]:
    """Point labels as preferences: within a task group, every good conversation over every bad one."""
    by_group: dict[str, tuple[list[str], list[str]]] = {}
    for cid, label in data.points:
        good, bad = by_group.setdefault(data.conversations[cid].group, ([], []))
        (good if label else bad).append(cid)
    return [(g, b) for good, bad in by_group.values() for g in good for b in bad]


def training_pairs(data: Dataset) -> list[tuple[str, str]]:
    """Explicit pairs plus those implied by point labels, without duplicates, in a stable order."""
    seen: set[tuple[str, str]] = set()
    out = []
    for p in data.pairs + implied_pairs(data):
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


def heldout_groups(groups: set[str], fraction: float, seed: int) -> set[str]:
    """A deterministic share of the task groups held out (at least one when there are two or more)."""
    ranked = sorted(groups, key=lambda g: hashlib.sha256(f"{seed}:{g}".encode()).hexdigest())
    k = int(round(fraction * len(ranked)))
    if fraction > 0 and len(ranked) >= 2:
        k = min(max(1, k), len(ranked) - 1)
    return set(ranked[:k])


@dataclass
class Split:
    train_pairs: list[tuple[str, str]]
    heldout_pairs: list[tuple[str, str]]
    train_points: list[tuple[str, int]]
    heldout_points: list[tuple[str, int]]


def split(data: Dataset, pairs: list[tuple[str, str]], fraction: float, seed: int) -> Split:
    """Splits by task group, so no held-out group's conversations are trained on."""
    held = heldout_groups({c.group for c in data.conversations.values()}, fraction, seed)
    group = {cid: c.group for cid, c in data.conversations.items()}
    is_held_pair = lambda p: group[p[0]] in held or group[p[1]] in held  # noqa: E731
    return Split(
        train_pairs=[p for p in pairs if not is_held_pair(p)],
        heldout_pairs=[p for p in pairs if group[p[0]] in held and group[p[1]] in held],
        train_points=[p for p in data.points if group[p[0]] not in held],
        heldout_points=[p for p in data.points if group[p[0]] in held],
    )


def render(tokenizer: Any, conv: Conversation) -> str:
    """The conversation as the chat template renders it (no generation prompt)."""
    return tokenizer.apply_chat_template(conv.messages, tools=conv.tools, tokenize=False, add_generation_prompt=False)


def encode(tokenizer: Any, conv: Conversation, max_length: int) -> list[int]:
    """Token ids of the rendered conversation, keeping the last `max_length` when it is longer."""
    ids = list(tokenizer(render(tokenizer, conv), add_special_tokens=False)["input_ids"])
    return ids[-max_length:] if len(ids) > max_length else ids


def batches(items: list[Any], size: int, rng: random.Random) -> list[list[Any]]:
    order = list(items)
    rng.shuffle(order)
    return [order[i : i + size] for i in range(0, len(order), size)]
