"""Test-only forced replies: the end-to-end family tests make a random-weights model write a
well-formed tool call and reasoning in its family's format by forcing the sampled tokens.

Set `AGENTJET_TEST_FORCED_REPLIES` to a JSON file `{"replies": [[token ids], ...]}` before the engine
starts: each generated sequence, in the order the `generate` requests arrive, takes the next reply's
tokens instead of sampling (one reply per sequence; when the list is used up, sampling is normal).
Everything else is the real path: the model runs its forward at every step, the reported logprob of
a forced token is the model's raw logprob of it, the stop ids end the reply, and the recorded
timeline holds exactly these ids. Never set in production: the engine logs a warning when it is.
"""

from __future__ import annotations

import json
import logging
import os
from collections import deque

import torch
from torch import Tensor

from .errors import invalid

ENV = "AGENTJET_TEST_FORCED_REPLIES"
log = logging.getLogger("agentjet_engine")


class ForcedReplies:
    def __init__(self, replies: list[list[int]]) -> None:
        self.queue: deque[tuple[int, ...]] = deque(tuple(r) for r in replies)

    @classmethod
    def from_env(cls) -> ForcedReplies | None:
        path = os.environ.get(ENV)
        if not path:
            return None
        with open(path, encoding="utf-8") as f:
            raw = json.load(f)
        replies = raw.get("replies") if isinstance(raw, dict) else None
        if not isinstance(replies, list) or not all(
            isinstance(r, list) and r and all(isinstance(i, int) and i >= 0 for i in r) for r in replies
        ):
            raise ValueError(f"{ENV}: {path} must hold {{'replies': [[token ids], ...]}} (non-empty lists)")
        log.warning("%s is set: %d generated sequences take forced tokens (a test setting)", ENV, len(replies))
        return cls(replies)

    def next(self, vocab_size: int, field: str) -> tuple[int, ...]:
        """The next reply's tokens, or () once the list is used up."""
        if not self.queue:
            return ()
        reply = self.queue.popleft()
        if max(reply) >= vocab_size:
            raise invalid(field, f"a forced reply has token id {max(reply)} ≥ the vocabulary ({vocab_size})")
        return reply


def force_tokens(chosen: Tensor, forced: list[tuple[tuple[int, ...], int]]) -> Tensor:
    """`chosen` (B,) with row i replaced by `forced[i][0][forced[i][1]]` where that token exists."""
    overrides = [(i, reply[at]) for i, (reply, at) in enumerate(forced) if at < len(reply)]
    if not overrides:
        return chosen
    chosen = chosen.clone()
    rows = torch.tensor([i for i, _ in overrides], device=chosen.device)
    chosen[rows] = torch.tensor([t for _, t in overrides], dtype=chosen.dtype, device=chosen.device)
    return chosen


def used_up(reply: tuple[int, ...], produced: int) -> bool:
    """True when a forced reply has no token left for the next step."""
    return bool(reply) and produced >= len(reply)
