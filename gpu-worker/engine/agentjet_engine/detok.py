"""Incremental detokenization and stop strings for streamed generation.

`TextTracker` turns one sequence's sampled tokens into text as they come: each step decodes only a
short window (the tokens since the last emitted boundary), holds back a trailing U+FFFD (half a
UTF-8 character), finds stop strings (OpenAI `stop`) in the text, and says what may be shown now:
never a possible beginning of a stop string, never the stop string itself or anything after it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

Decode = Callable[[list[int]], str]


def stop_holdback(text: str, stops: Sequence[str]) -> int:
    """Length of the longest suffix of `text` that is a proper prefix of some stop string."""
    hold = 0
    for s in stops:
        for k in range(min(len(s) - 1, len(text)), hold, -1):
            if text.endswith(s[:k]):
                hold = k
                break
    return hold


def find_stop(text: str, stops: Sequence[str], since: int) -> int:
    """Earliest index ≥ 0 of a stop string that ends after `since`, or −1."""
    best = -1
    for s in stops:
        i = text.find(s, max(0, since - len(s) + 1))
        if i >= 0 and (best < 0 or i < best):
            best = i
    return best


class TextTracker:
    def __init__(self, decode: Decode, stops: Sequence[str] = ()) -> None:
        self.decode = decode
        self.stops = [s for s in stops if s]
        self.ids: list[int] = []
        self.prefix_offset = 0
        self.read_offset = 0
        self.text = ""  # decoded so far (complete characters only)
        self.shown = 0  # characters of `text` already handed out
        self.stop_at = -1  # where a stop string begins in `text`, once found

    def push(self, token_id: int) -> None:
        """Adds a sampled token; afterwards `stopped` tells whether a stop string completed."""
        self.ids.append(token_id)
        prefix = self.decode(self.ids[self.prefix_offset : self.read_offset])
        full = self.decode(self.ids[self.prefix_offset :])
        if len(full) > len(prefix) and not full.endswith("\ufffd"):
            before = len(self.text)
            self.text += full[len(prefix) :]
            self.prefix_offset, self.read_offset = self.read_offset, len(self.ids)
            if self.stops:
                self.stop_at = find_stop(self.text, self.stops, before)

    @property
    def stopped(self) -> bool:
        return self.stop_at >= 0

    def visible(self) -> str:
        """Text that can be shown now and was not shown yet."""
        end = self.stop_at if self.stop_at >= 0 else len(self.text) - stop_holdback(self.text, self.stops)
        if end <= self.shown:
            return ""
        out = self.text[self.shown : end]
        self.shown = end
        return out

    def finish(self) -> tuple[str, str]:
        """(the last delta, the reply's text): everything decoded, cut before a matched stop string.

        Without a stop string the text is a fresh decode of every token (it may end with U+FFFD when
        the reply was cut inside a character); the delta is what the deltas so far still lack.
        """
        if self.stop_at >= 0:
            text = self.text[: self.stop_at]
        else:
            text = self.decode(self.ids)
        shown = self.text[: self.shown]
        delta = text[len(shown) :] if text.startswith(shown) else ""
        self.shown = len(text)
        return delta, text
