"""The batcher's fairness rule: short calls get a lane of rows above `max_rows`, so under a full batch
of long generations they do not wait for one to finish; long generations keep every row they had."""

from __future__ import annotations

from collections.abc import Callable

from agentjet_engine.admission_policy import RowLimits, is_short, takes_row
from agentjet_engine.engine import Engine
from agentjet_engine.generation import GenerationRequest
from agentjet_engine.serving import _Collect

LIMITS = RowLimits(max_rows=4, short_rows=2, short_tokens=16)


def test_any_call_takes_a_row_below_max_rows() -> None:
    assert takes_row(0, 10_000, LIMITS)
    assert takes_row(3, 10_000, LIMITS)
    assert takes_row(3, 1, LIMITS)


def test_a_long_call_waits_once_max_rows_are_in_use() -> None:
    assert not takes_row(4, 17, LIMITS)
    assert not takes_row(5, 10_000, LIMITS)


def test_a_short_call_takes_a_lane_row_until_the_lane_is_full() -> None:
    assert is_short(16, LIMITS) and not is_short(17, LIMITS)
    assert takes_row(4, 16, LIMITS)
    assert takes_row(5, 1, LIMITS)
    assert not takes_row(6, 1, LIMITS)
    assert LIMITS.total == 6


def test_no_lane_when_short_rows_is_zero() -> None:
    off = RowLimits(max_rows=4, short_rows=0, short_tokens=16)
    assert not is_short(1, off)
    assert not takes_row(4, 1, off)
    assert off.total == 4


def _steps_until_short_done(engine: Engine, short_rows: int) -> tuple[int, int]:
    """A full batch of 4 long generations (24 tokens, no stop), then a short call (4 tokens): the
    steps the short call took, and the batcher's steps until the long ones finished."""
    engine.configure({"maxRows": 4, "shortRows": short_rows, "shortTokens": 8})
    b = engine.serving.batcher
    prompt = engine.render({"messages": [{"role": "user", "content": "What is 345 + 678?"}]})["tokenIds"]

    def req(seed: int, tokens: int) -> GenerationRequest:
        return GenerationRequest(
            prompt_ids=prompt, max_tokens=tokens, temperature=1.0, top_p=1.0, stop_ids=frozenset(), seed=seed
        )

    longs = [_Collect() for _ in range(4)]
    for i, sink in enumerate(longs):
        b.submit([req(i, 24)], sink)
    b.step()  # the long ones take every row
    short = _Collect()
    b.submit([req(99, 4)], short)
    started = b.stats.steps
    while short.results is None:
        b.step()
    short_steps = b.stats.steps - started
    while any(s.results is None for s in longs):
        b.step()
    assert short.error is None and all(s.error is None for s in longs)
    assert [len(s.results[0]["tokenIds"]) for s in longs if s.results] == [24] * 4
    return short_steps, b.stats.steps


def test_a_short_call_does_not_wait_behind_a_full_batch(make_engine: Callable[..., Engine]) -> None:
    with_lane, steps_with = _steps_until_short_done(make_engine(), short_rows=2)
    without, steps_without = _steps_until_short_done(make_engine(), short_rows=0)
    assert with_lane == 4  # one prefill step samples its first token, three decode steps the rest
    assert without >= 4 + 22  # it waited for the long ones to finish
    assert steps_with <= steps_without  # and the long ones did not take a step more for it
