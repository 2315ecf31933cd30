"""Which waiting sequence may take a decode row now: the continuous batcher's fairness rule.

Every sequence decodes in a row, and at most `max_rows` decode together. Under a full batch of long
generations a new call waits for a row, in arrival order, until one finishes — with 64 streams
started together, for most of their length. `bench server --fairness` measured that wait as the
largest part of a short call's latency under load (the rest, slower steps of a fuller batch, is the
hardware's share). So short calls (at most `short_tokens` new tokens: an interactive turn, a tool
choice, a classifier) get a lane of `short_rows` rows kept above `max_rows`: they never wait behind
long generations for a row, while long generations keep every one of the `max_rows` rows they had
(no one is pre-empted, nothing starves: a short call holds its lane row for at most `short_tokens`
steps). The KV budget still bounds every admission. `short_rows = 0` turns the lane off.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RowLimits:
    max_rows: int
    short_rows: int
    short_tokens: int

    @property
    def total(self) -> int:
        """Rows that can be in use at once (the slot store's row cap)."""
        return self.max_rows + self.short_rows


def is_short(max_tokens: int, limits: RowLimits) -> bool:
    return limits.short_rows > 0 and max_tokens <= limits.short_tokens


def takes_row(rows_in_use: int, max_tokens: int, limits: RowLimits) -> bool:
    """True when a waiting sequence asking for `max_tokens` new tokens may take a row now."""
    if rows_in_use < limits.max_rows:
        return True
    return is_short(max_tokens, limits) and rows_in_use < limits.total
