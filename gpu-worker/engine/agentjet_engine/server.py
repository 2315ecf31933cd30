"""Request dispatch: frames in, one response frame out per request; no input can stop the loop."""

from __future__ import annotations

import json
import logging
import time
import traceback
from collections.abc import Callable
from typing import Any, BinaryIO

import torch

from .engine import Engine
from .errors import EngineError, internal
from .framing import FrameReader, FrameTooLarge, encode_frame

log = logging.getLogger("agentjet_engine")

Handler = Callable[[dict[str, Any]], Any]


def error_response(request_id: Any, error: EngineError) -> dict[str, Any]:
    return {"id": request_id, "error": error.to_json()}


class Server:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.methods: dict[str, Handler] = {
            "info": engine.info, "load": engine.load, "render": engine.render, "generate": engine.generate,
            "logprobs": engine.logprobs, "decode": engine.decode, "train_step": engine.train_step,
            "save": engine.save, "restore": engine.restore,
        }

    def parse(self, payload: bytes) -> tuple[Any, str, dict[str, Any]]:
        """(id, method, params) or an EngineError carrying the id when one could be read."""
        try:
            text = payload.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise EngineError("protocol", "bad_utf8", f"frame is not valid UTF-8: {exc}") from exc
        try:
            request = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise EngineError("protocol", "bad_json", f"frame is not valid JSON: {exc}") from exc
        if not isinstance(request, dict):
            raise EngineError("protocol", "not_object", "a request must be a JSON object {id, method, params}")
        request_id = request.get("id")
        if isinstance(request_id, bool) or not isinstance(request_id, (int, str)):
            raise EngineError("protocol", "bad_id", "request `id` must be an integer or a string")
        method = request.get("method")
        if not isinstance(method, str):
            raise _WithId(request_id, EngineError("protocol", "bad_method", "request `method` must be a string"))
        params = request.get("params")
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise _WithId(request_id, EngineError("invalid_params", "wrong_type", "params: must be an object"))
        return request_id, method, params

    def handle(self, payload: bytes) -> dict[str, Any]:
        """One request payload → one response object (never raises)."""
        request_id: Any = None
        try:
            request_id, method, params = self.parse(payload)
            handler = self.methods.get(method)
            if handler is None:
                raise EngineError("unknown_method", "unknown_method",
                                  f"unknown method {method!r}; known: {', '.join(sorted(self.methods))}")
            started = time.perf_counter()
            result = handler(params)
            log.debug("%s took %.3fs", method, time.perf_counter() - started)
            return {"id": request_id, "result": result}
        except _WithId as wrapped:
            return error_response(wrapped.request_id, wrapped.error)
        except EngineError as exc:
            return error_response(request_id, exc)
        except Exception as exc:  # anything else is reported and the engine keeps serving
            log.error("internal error:\n%s", traceback.format_exc())
            if isinstance(exc, torch.OutOfMemoryError) and torch.cuda.is_available():
                torch.cuda.empty_cache()
            return error_response(request_id, internal(exc))

    def respond(self, out: BinaryIO, response: dict[str, Any]) -> None:
        try:
            frame = encode_frame(response)
        except (ValueError, TypeError) as exc:  # e.g. a NaN in a result: JSON has no spelling for it
            frame = encode_frame(error_response(response.get("id"), EngineError(
                "internal", "unencodable_result", f"the result could not be encoded as JSON: {exc}")))
        out.write(frame)
        out.flush()

    def serve(self, reader: FrameReader, out: BinaryIO) -> None:
        """Answer frames in order until end of input."""
        while True:
            try:
                payload = reader.read_frame()
            except FrameTooLarge as exc:
                dropped = reader.discard_pending()
                log.warning("refused a %d-byte frame; dropped %d pending bytes", exc.length, dropped)
                self.respond(out, error_response(None, EngineError("protocol", "frame_too_large", str(exc))))
                continue
            if payload is None:
                return
            self.respond(out, self.handle(payload))


class _WithId(Exception):
    """An error found after the request id was read, so the response can carry it."""

    def __init__(self, request_id: Any, error: EngineError) -> None:
        super().__init__(error.message)
        self.request_id = request_id
        self.error = error
