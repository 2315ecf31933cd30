"""Length-prefixed frames over byte streams: 4-byte big-endian length, then that many bytes of UTF-8 JSON.

Also the two checks that let the server answer every frame by its id: the nesting depth of a JSON
text, measured before parsing (Python's parser recurses, so a deep frame would fail unanswered),
and the request id read from a frame that cannot be parsed.
"""

from __future__ import annotations

import json
import os
import re
import select
from itertools import accumulate
from typing import Any, BinaryIO

MAX_FRAME = 512 * 1024 * 1024
_CHUNK = 1 << 20
# The deepest JSON a frame (or a tool call's arguments) may nest: far below the interpreter's
# recursion limit, far above what the worker lets through (64 levels in a request).
MAX_DEPTH = 128


class FrameTooLarge(Exception):
    def __init__(self, length: int, limit: int) -> None:
        super().__init__(f"frame of {length} bytes is larger than the {limit}-byte limit")
        self.length = length


class FrameReader:
    """Reads frames from a file descriptor with its own buffer (so it can drain what is pending)."""

    def __init__(self, fd: int, max_frame: int = MAX_FRAME) -> None:
        self.fd = fd
        self.max_frame = max_frame
        self.buffer = bytearray()
        self.eof = False

    def _fill(self, size: int) -> bool:
        while len(self.buffer) < size:
            chunk = os.read(self.fd, max(_CHUNK, min(size - len(self.buffer), 64 * _CHUNK)))
            if not chunk:
                self.eof = True
                return False
            self.buffer += chunk
        return True

    def read_frame(self) -> bytes | None:
        """The next payload, or None at end of input (a partial trailing frame counts as the end).

        Raises FrameTooLarge after consuming only the 4-byte prefix; call `discard_pending` then.
        """
        if not self._fill(4):
            return None
        length = int.from_bytes(self.buffer[:4], "big")
        if length > self.max_frame:
            del self.buffer[:4]
            raise FrameTooLarge(length, self.max_frame)
        if not self._fill(4 + length):
            return None
        payload = bytes(self.buffer[4 : 4 + length])
        del self.buffer[: 4 + length]
        return payload

    def discard_pending(self) -> int:
        """Drop buffered bytes and whatever can be read right now without blocking; returns the count.

        After a refused frame the stream position is unknown, so everything already sent is dropped
        and reading resumes with the next bytes the peer writes. (On Windows, where select() does not
        work on pipes, only the internal buffer is dropped.)
        """
        dropped = len(self.buffer)
        self.buffer.clear()
        if os.name == "nt":
            return dropped
        while True:
            try:
                ready, _, _ = select.select([self.fd], [], [], 0)
            except (OSError, ValueError):
                return dropped
            if not ready:
                return dropped
            chunk = os.read(self.fd, _CHUNK)
            if not chunk:
                self.eof = True
                return dropped
            dropped += len(chunk)


def encode_frame(message: Any) -> bytes:
    """JSON-encode (strict: no NaN/Infinity) and prefix with the big-endian length."""
    data = json.dumps(message, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
    return len(data).to_bytes(4, "big") + data


def write_frame(stream: BinaryIO, message: Any) -> None:
    stream.write(encode_frame(message))
    stream.flush()


def read_frame_from(stream: BinaryIO) -> Any:
    """Blocking read of one frame from a binary stream (client side); None at EOF."""
    head = stream.read(4)
    if len(head) < 4:
        return None
    length = int.from_bytes(head, "big")
    data = stream.read(length)
    if len(data) < length:
        return None
    return json.loads(data.decode("utf-8"))


_KEEP = b'[]{}"'
_DELETE = bytes(b for b in range(256) if b not in _KEEP)
_STRING = re.compile(rb'"[^"]*"')
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def nesting_depth(text: str | bytes) -> int:
    """How deep the arrays and objects of a JSON text nest (0 for a scalar), in linear time without
    recursion. Escaped backslashes and quotes go first, then everything but brackets and quotes, then
    the strings; what is left is the bracket structure. Meant for valid JSON (any text gets a number)."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if data.count(b"[") + data.count(b"{") == 0:
        return 0
    skeleton = _STRING.sub(b"", data.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _DELETE))
    return max(0, max(accumulate(_STEP[b] for b in skeleton), default=0))


_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}:,]')
_DECODER = json.JSONDecoder()


def leading_id(text: str) -> Any:
    """The top-level `id` of a request frame that could not be parsed (too deep, or broken after the
    id), or None when there is none to read. Scans the top-level keys without parsing the values."""
    depth, key, expect_key = 0, None, False
    for token in _TOKEN.finditer(text):
        t = token.group()
        if t in "[{":
            if depth == 0 and t == "[":
                return None
            depth += 1
            expect_key = depth == 1
        elif t in "]}":
            depth -= 1
            if depth <= 0:
                return None
        elif t == ",":
            expect_key = depth == 1
        elif t == ":" and depth == 1 and key == "id":
            try:
                value, _ = _DECODER.raw_decode(text, _skip_space(text, token.end()))
            except ValueError:
                return None
            return value if isinstance(value, (int, str)) and not isinstance(value, bool) else None
        elif t.startswith('"') and depth == 1 and expect_key:
            key, expect_key = t[1:-1], False
    return None


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i
