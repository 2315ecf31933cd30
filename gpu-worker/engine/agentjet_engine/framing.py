"""Length-prefixed frames over byte streams: 4-byte big-endian length, then that many bytes of UTF-8 JSON."""

from __future__ import annotations

import json
import os
import select
from typing import Any, BinaryIO

MAX_FRAME = 512 * 1024 * 1024
_CHUNK = 1 << 20


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
