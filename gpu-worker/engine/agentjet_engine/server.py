"""Protocol v2 dispatch: a reader thread turns stdin frames into a queue; the main thread runs the
serving loop — it drains the queue, answers light requests at once, admits generations to the
continuous batcher and runs one decode step at a time, so requests are answered by id, out of
order, and `info`/`render`/`decode`/`logprobs` never wait for a generation to finish.

`train_step`, `save`, `restore` and `load` run exclusively: once one is received, admission
stops, the running generations finish, it runs alone, and the requests that arrived after it
(generations, logprobs, further exclusive ones) follow in order. Every weight change drops the
prefix KV cache. A replica's `sync_pull` (engine_sync.py) receives weights on a background thread
and is applied from the loop: between two decode steps, or — `inflight: "finish"` — as an exclusive
request once the running generations finish. No input can stop the loop: bad frames get error
frames; EOF on stdin ends it within a step (and a watchdog exits the process when a long exclusive call holds the loop).
"""

from __future__ import annotations

import json
import logging
import os
import queue
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO

import torch

from .engine import Engine
from .errors import EngineError, internal
from .framing import MAX_DEPTH, FrameReader, FrameTooLarge, encode_frame, leading_id, nesting_depth
from .scheduler import Job

log = logging.getLogger("agentjet_engine")

Handler = Callable[[dict[str, Any]], Any]

EXCLUSIVE = frozenset({"load", "train_step", "save", "restore", "sync_apply"})
# Requests that follow an exclusive one in arrival order (they depend on its weights).
ORDERED = EXCLUSIVE | {"generate", "logprobs"}
CANCELLED = EngineError("cancelled", "cancelled", "the request was cancelled")


def error_response(request_id: Any, error: EngineError) -> dict[str, Any]:
    return {"id": request_id, "error": error.to_json()}


def id_key(request_id: Any) -> tuple[str, Any]:
    return (type(request_id).__name__, request_id)


@dataclass
class Request:
    id: Any
    method: str
    params: dict[str, Any]


class _Sink:
    """Sends one generate request's delta frames and its final answer."""

    def __init__(self, server: Server, request_id: Any) -> None:
        self.server, self.id = server, request_id
        self.version = server.engine.weight_version  # the oldest weights its tokens can come from

    def delta(self, index: int, token_ids: list[int], logprobs: list[float], text: str) -> None:
        self.server.send(
            {"id": self.id, "delta": {"index": index, "tokenIds": token_ids, "logprobs": logprobs, "text": text}}
        )

    def done(self, results: list[dict[str, Any]]) -> None:
        self.server.jobs.pop(id_key(self.id), None)
        self.server.send({"id": self.id, "result": {"results": results, "weightVersion": self.version}})

    def fail(self, error: Exception) -> None:
        self.server.jobs.pop(id_key(self.id), None)
        self.server.send(error_response(self.id, error if isinstance(error, EngineError) else internal(error)))


class Server:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.methods: dict[str, Handler] = {
            "info": engine.info,
            "load": engine.load,
            "render": engine.render,
            "generate": engine.generate,
            "logprobs": engine.logprobs,
            "decode": engine.decode,
            "train_step": engine.train_step,
            "save": engine.save,
            "restore": engine.restore,
            "configure": engine.configure,
            "cache_stats": engine.cache_stats,
            "cancel": self.cancel,
            "sync_open": engine.sync_open,
            "sync_join": engine.sync_join,
            "sync_push": engine.sync_push,
            "sync_leave": engine.sync_leave,
            "sync_pull": self.sync_pull,
        }
        self.inbox: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.applies: dict[tuple[str, Any], Callable[[], Any]] = {}
        self.jobs: dict[tuple[str, Any], Job] = {}
        self.backlog: deque[Request] = deque()
        self.outbox: list[bytes] = []
        self.out: BinaryIO | None = None

    # ---- parsing -------------------------------------------------------------------------------
    def parse(self, payload: bytes) -> tuple[Any, str, dict[str, Any]]:
        """(id, method, params), or an EngineError carrying the id whenever one can be read: the nesting
        depth is bounded before parsing, and a frame that cannot be parsed is answered by its id."""
        try:
            text = payload.decode("utf-8")
        except UnicodeDecodeError as exc:
            error = EngineError("protocol", "bad_utf8", f"frame is not valid UTF-8: {exc}")
            raise _answer(leading_id(payload.decode("utf-8", "replace")), error) from exc
        depth = nesting_depth(payload)
        if depth > MAX_DEPTH:
            error = EngineError(
                "invalid_params", "too_deep", f"the request nests {depth} levels deep; at most {MAX_DEPTH} are accepted"
            )
            raise _answer(leading_id(text), error)
        try:
            request = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise _answer(
                leading_id(text), EngineError("protocol", "bad_json", f"frame is not valid JSON: {exc}")
            ) from exc
        if not isinstance(request, dict):
            raise EngineError("protocol", "not_object", "a request must be a JSON object {id, method, params}")
        request_id = request.get("id")
        if isinstance(request_id, bool) or not isinstance(request_id, (int, str)):
            raise EngineError("protocol", "bad_id", "request `id` must be an integer or a string")
        method = request.get("method")
        if not isinstance(method, str):
            raise _WithId(request_id, EngineError("protocol", "bad_method", "request `method` must be a string"))
        if method not in self.methods:
            raise _WithId(
                request_id,
                EngineError(
                    "unknown_method",
                    "unknown_method",
                    f"unknown method {method!r}; known: {', '.join(sorted(self.methods))}",
                ),
            )
        params = request.get("params")
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise _WithId(request_id, EngineError("invalid_params", "wrong_type", "params: must be an object"))
        return request_id, method, params

    # ---- output --------------------------------------------------------------------------------
    def send(self, response: dict[str, Any]) -> None:
        try:
            frame = encode_frame(response)
        except (TypeError, ValueError) as exc:  # e.g. a NaN slipped into a result
            frame = encode_frame(
                error_response(
                    response.get("id"),
                    EngineError("internal", "unencodable_result", f"the result could not be encoded as JSON: {exc}"),
                )
            )
        self.outbox.append(frame)

    def flush(self) -> None:
        if not self.outbox or self.out is None:
            return
        data = b"".join(self.outbox)
        self.outbox.clear()
        self.out.write(data)
        self.out.flush()

    # ---- one request ---------------------------------------------------------------------------
    def _run(self, request_id: Any, fn: Callable[[], Any]) -> None:
        """Runs a handler and sends its answer; errors become error frames (never raises)."""
        try:
            started = time.perf_counter()
            result = fn()
            log.debug("request %r took %.3fs", request_id, time.perf_counter() - started)
            if result is not None:
                self.send({"id": request_id, "result": result})
        except EngineError as exc:
            self.send(error_response(request_id, exc))
        except Exception as exc:  # anything else is reported and the engine keeps serving
            log.error("internal error:\n%s", traceback.format_exc())
            if isinstance(exc, torch.OutOfMemoryError) and torch.cuda.is_available():
                torch.cuda.empty_cache()
            self.send(error_response(request_id, internal(exc)))

    def accept_payload(self, payload: bytes) -> None:
        request_id: Any = None
        try:
            request_id, method, params = self.parse(payload)
        except _WithId as wrapped:
            self.send(error_response(wrapped.request_id, wrapped.error))
            return
        except EngineError as exc:
            self.send(error_response(request_id, exc))
            return
        self.accept(Request(request_id, method, params))

    def accept(self, req: Request) -> None:
        if req.method == "cancel":
            self._run(req.id, lambda: self.cancel(req.params))
        elif req.method == "sync_pull":
            self._run(req.id, lambda: self.sync_pull(req.params, req.id))
        elif req.method in ORDERED and (self.backlog or req.method in EXCLUSIVE):
            self.backlog.append(req)
        else:
            self.start(req)

    def start(self, req: Request) -> None:
        """Runs a request now; a continuous `generate` is admitted and answered when it finishes."""
        if req.method == "generate" and self.engine.loaded is not None and self.engine.serving.continuous:
            self._run(req.id, lambda: self._submit(req))
        elif req.method == "sync_apply":
            self._run(req.id, self.applies.pop(id_key(req.id)))
        elif req.method in EXCLUSIVE:
            self._run(req.id, lambda: self._exclusive(req))
        else:
            self._run(req.id, lambda: self.methods[req.method](req.params))

    def _submit(self, req: Request) -> None:
        key = id_key(req.id)
        if key in self.jobs:
            raise EngineError("protocol", "duplicate_id", f"request id {req.id!r} is already generating")
        requests, stream = self.engine.parse_generate(req.params)
        job = self.engine.serving.submit(requests, _Sink(self, req.id), stream)
        if job.left > 0:
            self.jobs[key] = job
        return None

    def _exclusive(self, req: Request) -> Any:
        before = self.engine.weight_version
        try:
            return self.methods[req.method](req.params)
        finally:
            if req.method != "save" and (req.method != "train_step" or self.engine.weight_version != before):
                self.engine.serving.weights_changed()

    def sync_pull(self, params: dict[str, Any], request_id: Any = None) -> None:
        """A replica's weight pull (engine_sync.py): received off the loop, applied between decode steps
        (`inflight: "swap"`) or once the running generations finish (`"finish"`); answered when applied."""
        policy = params.get("inflight", "swap")
        if policy not in ("swap", "finish"):
            raise EngineError("invalid_params", "out_of_range", 'inflight: must be "swap" or "finish"')

        def received(apply: Callable[[], Any]) -> None:
            self.inbox.put(("apply", (request_id, policy, apply)))

        self.engine.start_pull(params, received)
        if policy == "finish":
            # Its place in line is taken now: whatever arrives after the pull waits behind the swap, even
            # while the weights are still arriving (`_awaiting_weights`), so it runs on the new weights.
            self.backlog.append(Request(request_id, "sync_apply", {}))

    def _applied(self, request_id: Any, policy: str, apply: Callable[[], Any]) -> None:
        if policy == "swap":
            self._run(request_id, apply)
        else:
            self.applies[id_key(request_id)] = apply

    def _awaiting_weights(self) -> bool:
        """The backlog's head is a `finish` pull whose weights have not arrived yet."""
        head = self.backlog[0] if self.backlog else None
        return head is not None and head.method == "sync_apply" and id_key(head.id) not in self.applies

    def cancel(self, params: dict[str, Any]) -> dict[str, Any]:
        if "requestId" not in params:
            raise EngineError("invalid_params", "missing_field", "requestId: is required")
        target = params["requestId"]
        if isinstance(target, bool) or not isinstance(target, (int, str)):
            raise EngineError("invalid_params", "wrong_type", "requestId: must be an integer or a string")
        job = self.jobs.pop(id_key(target), None)
        if job is not None:
            self.engine.serving.batcher.cancel(job)
            self.send(error_response(target, CANCELLED))
            return {"cancelled": True}
        for queued in list(self.backlog):
            if queued.method == "generate" and id_key(queued.id) == id_key(target):
                self.backlog.remove(queued)
                self.send(error_response(target, CANCELLED))
                return {"cancelled": True}
        return {"cancelled": False}

    # ---- the loop ------------------------------------------------------------------------------
    def advance(self) -> None:
        """Runs what is ready: the backlog up to an exclusive request that must wait, then one step."""
        serving = self.engine.serving
        while self.backlog:
            head = self.backlog[0]
            if self._awaiting_weights():
                break  # a `finish` pull: what came after it waits for its weights
            if head.method in EXCLUSIVE and serving.busy:
                break  # admission is paused until the running generations finish
            self.backlog.popleft()
            self.start(head)
        if serving.busy:
            try:
                serving.step()
            except Exception as exc:
                log.error("serving step failed:\n%s", traceback.format_exc())
                if isinstance(exc, torch.OutOfMemoryError) and torch.cuda.is_available():
                    torch.cuda.empty_cache()

    def serve(self, reader: FrameReader, out: BinaryIO, eof_grace_s: float | None = None) -> None:
        """Answers frames until end of input. With `eof_grace_s`, a process whose loop is held by a
        long call past that many seconds after EOF exits anyway (the worker is gone)."""
        self.out = out
        inbox = self.inbox
        threading.Thread(target=_read_frames, args=(reader, inbox, eof_grace_s), name="frames", daemon=True).start()
        while True:
            idle = not self.engine.serving.busy and (not self.backlog or self._awaiting_weights())
            try:
                item = inbox.get() if idle else inbox.get_nowait()
            except queue.Empty:
                item = None
            while item is not None:
                kind, value = item
                if kind == "eof":
                    self.flush()
                    return
                if kind == "frame":
                    self.accept_payload(value)
                elif kind == "apply":
                    self._applied(*value)
                else:
                    self.send(error_response(None, value))
                try:
                    item = inbox.get_nowait()
                except queue.Empty:
                    item = None
            self.flush()
            self.advance()
            self.flush()


def _read_frames(reader: FrameReader, inbox: queue.Queue[tuple[str, Any]], eof_grace_s: float | None) -> None:
    while True:
        try:
            payload = reader.read_frame()
        except FrameTooLarge as exc:
            dropped = reader.discard_pending()
            log.warning("refused a %d-byte frame; dropped %d pending bytes", exc.length, dropped)
            inbox.put(("error", EngineError("protocol", "frame_too_large", str(exc))))
            continue
        except OSError as exc:
            log.warning("reading frames failed: %s", exc)
            payload = None
        if payload is None:
            inbox.put(("eof", None))
            if eof_grace_s is not None:
                time.sleep(eof_grace_s)
                log.warning("stdin closed and the engine is still busy after %.0fs; exiting", eof_grace_s)
                os._exit(0)
            return
        inbox.put(("frame", payload))


class _WithId(Exception):
    """An error found after the request id was read, so the response can carry it."""

    def __init__(self, request_id: Any, error: EngineError) -> None:
        super().__init__(error.message)
        self.request_id = request_id
        self.error = error


def _answer(request_id: Any, error: EngineError) -> Exception:
    """The error to raise for a frame that could not be parsed: with its id when one was read."""
    return error if request_id is None else _WithId(request_id, error)
