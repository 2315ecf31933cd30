"""Frame reader/writer over a real pipe: split and coalesced writes, EOF, oversized prefixes, strict JSON."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest
from agentjet_engine.framing import FrameReader, FrameTooLarge, encode_frame, leading_id, nesting_depth


def test_frames_split_across_writes_and_coalesced() -> None:
    r, w = os.pipe()
    reader = FrameReader(r)
    a, b = encode_frame({"id": 1, "x": "é🙂"}), encode_frame({"id": 2})

    def writer() -> None:
        for i in range(0, len(a), 3):  # byte-by-byte-ish dribble
            os.write(w, a[i : i + 3])
            time.sleep(0.001)
        os.write(w, b + b)  # two frames in one write
        os.close(w)

    threading.Thread(target=writer).start()
    assert json.loads(reader.read_frame()) == {"id": 1, "x": "é🙂"}
    assert json.loads(reader.read_frame()) == {"id": 2}
    assert json.loads(reader.read_frame()) == {"id": 2}
    assert reader.read_frame() is None and reader.eof
    os.close(r)


def test_partial_frame_at_eof_is_end_of_input() -> None:
    r, w = os.pipe()
    os.write(w, encode_frame({"id": 1})[:-2])
    os.close(w)
    assert FrameReader(r).read_frame() is None
    os.close(r)


def test_oversized_prefix_raises_then_discard_drops_pending_bytes() -> None:
    r, w = os.pipe()
    reader = FrameReader(r, max_frame=1000)
    os.write(w, (5000).to_bytes(4, "big") + b"x" * 300)
    with pytest.raises(FrameTooLarge):
        reader.read_frame()
    assert reader.discard_pending() == 300
    os.write(w, encode_frame({"id": "next"}))
    assert json.loads(reader.read_frame()) == {"id": "next"}
    os.close(w)
    os.close(r)


def test_encode_frame_is_length_prefixed_and_strict() -> None:
    frame = encode_frame({"a": [1, 2.5]})
    assert int.from_bytes(frame[:4], "big") == len(frame) - 4
    assert json.loads(frame[4:]) == {"a": [1, 2.5]}
    with pytest.raises(ValueError):
        encode_frame({"x": float("nan")})


def deep(levels: int) -> dict:
    """A schema whose JSON nests `levels` deep."""
    schema: dict = {"type": "string"}
    for _ in range(levels - 1):
        schema = {"a": schema}
    return schema


@pytest.mark.parametrize(
    "value",
    [
        1,
        "x",
        [],
        {"a": [1, {"b": "]]]}}}"}]},
        {"s": 'quote \\" and backslash \\\\ then [[[', "t": ["\\", '\\\\"', "{"]},
        [[[[["nested"]]]], {"k": {"k": {}}}],
        deep(5),
        deep(200),
    ],
)
def test_nesting_depth_matches_the_parsed_value(value: object) -> None:
    def depth(v: object) -> int:
        if isinstance(v, dict):
            return 1 + max((depth(x) for x in v.values()), default=0)
        if isinstance(v, list):
            return 1 + max((depth(x) for x in v), default=0)
        return 0

    text = json.dumps(value, ensure_ascii=False)
    assert nesting_depth(text) == depth(value)
    assert nesting_depth(text.encode()) == depth(value)


def test_nesting_depth_of_a_frame_too_deep_for_the_parser() -> None:
    text = "[" * 100_000 + "]" * 100_000
    with pytest.raises(RecursionError):
        json.loads(text)
    assert nesting_depth(text) == 100_000


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"id": 7, "method": "render", "params": ' + "[" * 5000 + "]" * 5000 + "}", 7),
        ('{"method": "render", "params": {"id": 3, "x": "\\"}"}, "id": "req-9"}', "req-9"),
        ('{"id":12,"method":"render","params":{"messages": [broken', 12),
        ('{"method": "x", "params": {"id": 5}}', None),
        ('{"id": true}', None),
        ('{"id": 1.5}', None),
        ("[1, 2]", None),
        ("not json", None),
        ('{"id": ', None),
    ],
)
def test_leading_id_reads_the_top_level_id_only(text: str, expected: object) -> None:
    assert leading_id(text) == expected
