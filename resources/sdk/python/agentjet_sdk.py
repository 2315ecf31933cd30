"""AgentJet swarm-client SDK for Python: a single file, standard library only.

Same semantics as the TypeScript SDK (src/sdk): claim / end / abort / agree_sync / status against a
swarm worker, retrying with exponential backoff (honouring Retry-After) while the server answers 503
or is briefly unreachable, bounded by an overall deadline; ``episode()`` claims, runs your code, ends
with its reward or aborts when it raises or passes its deadline; ``chat()`` makes an OpenAI-compatible
chat call with urllib, so no ``openai`` package is needed. An https worker with a self-signed
certificate (``agentjet worker --tls self-signed``) is trusted with ``ca_file=`` (or AGENTJET_CA_FILE):
the certificate file the worker printed, or a CA bundle; it is added to the system's roots.

    client = SwarmClient("http://127.0.0.1:8321", join_token)
    def play(ep):
        out = chat(ep.base_url, ep.api_key, [{"role": "user", "content": "2+2?"}], model=ep.model)
        return {"reward": 1.0 if "4" in out["choices"][0]["message"]["content"] else 0.0}
    client.episode("task-1", play)

    with client.episode("task-2") as ep:      # context form
        ...
        ep.end(reward=0.5, success=False)
"""

from __future__ import annotations

import json
import os
import random
import signal
import ssl
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional

__all__ = ["SwarmClient", "SwarmError", "Claim", "Episode", "chat", "install_signal_handlers", "abort_in_flight"]

RETRYABLE_STATUS = (502, 503, 504)


class SwarmError(Exception):
    """An error answer ``{error: {type, code, message}}``; status 0 when no answer came."""

    def __init__(self, status: int, type: str, code: str, message: str, retry_after_s: Optional[float] = None):
        super().__init__(message)
        self.status = status
        self.type = type
        self.code = code
        self.message = message
        self.retry_after_s = retry_after_s

    @property
    def retryable(self) -> bool:
        return self.status == 0 or self.status in RETRYABLE_STATUS

    def __repr__(self) -> str:
        return f"SwarmError(status={self.status}, type={self.type!r}, code={self.code!r}, message={self.message!r})"


def _error_from(status: int, text: str, retry_after: Optional[str], what: str) -> SwarmError:
    header_s: Optional[float] = None
    if retry_after is not None:
        try:
            header_s = float(retry_after.strip())
        except ValueError:
            header_s = None
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    err = body.get("error") if isinstance(body, dict) else None
    if isinstance(err, dict) and all(isinstance(err.get(k), str) for k in ("type", "code", "message")):
        hint = err.get("retry_after_s")
        if header_s is None and isinstance(hint, (int, float)):
            header_s = float(hint)
        return SwarmError(status, err["type"], err["code"], f"{what}: {err['message']}", header_s)
    return SwarmError(status, "http_error", f"http_{status}", f"{what}: HTTP {status} {text[:200]}", header_s)


def _connection_error(exc: BaseException, what: str) -> SwarmError:
    reason = getattr(exc, "reason", exc)
    if isinstance(reason, ConnectionRefusedError):
        code = "connection_refused"
    elif isinstance(reason, ConnectionResetError):
        code = "connection_reset"
    elif isinstance(reason, (TimeoutError, OSError)) and "timed out" in str(reason):
        code = "timeout"
    else:
        code = "connection_failed"
    return SwarmError(0, "connection_error", code, f"{what}: {reason}")


_contexts: Dict[str, ssl.SSLContext] = {}


def _tls_context(url: str, ca_file: Optional[str]) -> Optional[ssl.SSLContext]:
    """For an https URL with a CA file (given, else AGENTJET_CA_FILE): the system's roots plus that file."""
    ca_file = ca_file or os.environ.get("AGENTJET_CA_FILE") or None
    if not url.startswith("https://") or ca_file is None:
        return None
    if ca_file not in _contexts:
        ctx = ssl.create_default_context()
        ctx.load_verify_locations(cafile=ca_file)
        _contexts[ca_file] = ctx
    return _contexts[ca_file]


def _http_json(
    method: str, url: str, token: str, body: Any, timeout_s: float, what: str, ca_file: Optional[str] = None
) -> Any:
    data = None if body is None else json.dumps(body).encode("utf-8")
    headers = {"authorization": f"Bearer {token}", "accept": "application/json"}
    if data is not None:
        headers["content-type"] = "application/json"
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout_s, context=_tls_context(url, ca_file)) as res:
            text = res.read().decode("utf-8")
    except urllib.error.HTTPError as e:
        text = e.read().decode("utf-8", errors="replace")
        raise _error_from(e.code, text, e.headers.get("retry-after"), what) from None
    except (urllib.error.URLError, OSError) as e:
        raise _connection_error(e, what) from None
    try:
        return json.loads(text)
    except ValueError:
        raise SwarmError(200, "invalid_response", "not_json", f"{what}: non-JSON answer: {text[:200]}") from None


def backoff_s(attempt: int, retry_after_s: Optional[float], initial_s: float, max_s: float) -> float:
    """The wait before attempt ``attempt + 1``: exponential with jitter, at least Retry-After, at most ``max_s``."""
    wanted = initial_s * (2 ** min(attempt, 20)) * (0.75 + 0.5 * random.random())
    if retry_after_s is not None:
        wanted = max(wanted, retry_after_s)
    return min(wanted, max_s)


def _check(d: Any, what: str, **fields: type) -> Dict[str, Any]:
    """Checks an answer's shape (the zod schemas' job in the TS SDK)."""
    if not isinstance(d, dict):
        raise SwarmError(
            200, "invalid_response", "unexpected_shape", f"{what}: expected an object, got {type(d).__name__}"
        )
    for key, typ in fields.items():
        v = d.get(key)
        ok = isinstance(v, typ) and not (typ in (int, float, (int, float)) and isinstance(v, bool))
        if not ok:
            raise SwarmError(200, "invalid_response", "unexpected_shape", f"{what}: field {key!r} missing or not {typ}")
    return d


@dataclass(frozen=True)
class Claim:
    episode_id: str
    base_url: str
    api_key: str
    model: str
    weight_version: int
    kind: str
    timeout_s: float


# ---------------------------------------------------------------------------------------------
# In-flight episodes and signal handling
# ---------------------------------------------------------------------------------------------

_live: set[Episode] = set()
_live_lock = threading.RLock()  # re-entrant: the signal handler may run while the main thread holds it


def abort_in_flight(reason: str) -> int:
    """Aborts every in-flight episode of this process (best effort); returns how many."""
    with _live_lock:
        episodes = list(_live)
    for ep in episodes:
        ep.abort(reason)
    return len(episodes)


def install_signal_handlers(
    signals=(signal.SIGTERM, signal.SIGINT), exit: bool = True, log: Optional[Callable[[str], None]] = None
) -> None:
    """On SIGTERM/SIGINT: abort the in-flight episodes on the server, then exit with 128 + signal number."""

    def handler(signum: int, _frame: Any) -> None:
        name = signal.Signals(signum).name
        with _live_lock:
            n = len(_live)
        if n and log:
            log(f"{name}: aborting {n} in-flight episode(s)")
        abort_in_flight(f"client received {name}")
        if exit:
            sys.stdout.flush()
            os._exit(128 + signum)

    for s in signals:
        signal.signal(s, handler)


# ---------------------------------------------------------------------------------------------
# Episodes
# ---------------------------------------------------------------------------------------------


class Episode:
    """One claimed episode: the OpenAI credentials, ``end()`` / ``abort()``, and a deadline."""

    def __init__(self, client: SwarmClient, task_id: str, claim: Claim, deadline_s: Optional[float]):
        self.client = client
        self.task_id = task_id
        self.claim = claim
        self.episode_id = claim.episode_id
        self.base_url = claim.base_url
        self.api_key = claim.api_key
        self.model = claim.model
        self.weight_version = claim.weight_version
        #: Set when the deadline passes or the episode is aborted; check it in long loops.
        self.cancelled = threading.Event()
        #: Set once the server has answered (or failed to answer) this episode's abort.
        self._abort_settled = threading.Event()
        self.finished: Optional[str] = None  # "ended" | "aborted"
        self.result: Optional[Dict[str, Any]] = None
        self.deadline_passed = False
        self._lock = threading.RLock()
        self._deadline_at = time.monotonic() + deadline_s if deadline_s is not None else None
        self._timer: Optional[threading.Timer] = None
        if deadline_s is not None:
            self._timer = threading.Timer(deadline_s, self._on_deadline, args=(deadline_s,))
            self._timer.daemon = True
            self._timer.start()
        with _live_lock:
            _live.add(self)

    def _on_deadline(self, deadline_s: float) -> None:
        self.deadline_passed = True
        self.abort(f"deadline of {deadline_s} s passed")

    def remaining_s(self) -> Optional[float]:
        return None if self._deadline_at is None else max(0.0, self._deadline_at - time.monotonic())

    def chat(
        self, messages: List[Dict[str, Any]], tools: Optional[List[Dict[str, Any]]] = None, **params: Any
    ) -> Dict[str, Any]:
        """``chat()`` with this episode's credentials and model, bounded by the remaining deadline."""
        self._check_open()
        timeout = self.remaining_s()
        params.setdefault("model", self.model)
        return chat(
            self.base_url,
            self.api_key,
            messages,
            tools=tools,
            timeout_s=timeout if timeout is not None else 300.0,
            ca_file=self.client.ca_file,
            **params,
        )

    def _check_open(self) -> None:
        if self.deadline_passed:
            self._raise_deadline()
        if self.finished is not None:
            raise SwarmError(
                409,
                "conflict_error",
                f"episode_{self.finished}",
                f"episode {self.episode_id} is already {self.finished}",
            )

    def end(
        self, reward: float, success: Optional[bool] = None, metrics: Optional[Dict[str, float]] = None
    ) -> Dict[str, Any]:
        """Ends the episode with its reward (once)."""
        with self._lock:
            self._check_open()
            self.finished = "ended"
        self._stop_timer()
        try:
            self.result = self.client.end(self.episode_id, self.task_id, reward, success=success, metrics=metrics)
        except SwarmError as e:
            self.finished = None
            self.abort(f"end failed: {e.message}")
            raise
        return self.result

    def abort(self, reason: Optional[str] = None) -> None:
        """Aborts the episode on the server (once, best effort: errors are swallowed)."""
        with self._lock:
            if self.finished is not None:
                self.cancelled.set()
                return
            self.finished = "aborted"  # before `cancelled`, so a waiter that wakes sees it
            self.cancelled.set()
        self._stop_timer()
        try:
            self.client.abort(self.episode_id, reason, deadline_s=5.0)
        except SwarmError:
            pass
        finally:
            self._abort_settled.set()

    def _raise_deadline(self) -> None:
        # The deadline timer aborts on its own thread: let the server have that abort before the
        # caller hears about the deadline, so what the caller sees and what the server counts agree.
        if self.finished == "aborted":  # an abort was sent (its thread sets the event when answered)
            self._abort_settled.wait(6.0)
        raise SwarmError(
            408,
            "timeout_error",
            "episode_deadline",
            f"episode {self.episode_id} (task {self.task_id}) passed its deadline",
        )

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        with _live_lock:
            _live.discard(self)

    # context-manager form
    def __enter__(self) -> Episode:
        return self

    def __exit__(self, exc_type: Any, exc: Any, _tb: Any) -> bool:
        if exc is not None:
            self.abort(f"{exc_type.__name__}: {exc}"[:500])
        elif self.finished is None:
            self.abort("the episode block finished without end()")
        if exc is None and self.deadline_passed and self.result is None:
            self._raise_deadline()
        return False


# ---------------------------------------------------------------------------------------------
# The client
# ---------------------------------------------------------------------------------------------


class SwarmClient:
    def __init__(
        self,
        url: str,
        join_token: str,
        client_id: Optional[str] = None,
        deadline_s: float = 120.0,
        code_version: Optional[str] = None,
        initial_delay_s: float = 0.2,
        max_delay_s: float = 10.0,
        request_timeout_s: float = 60.0,
        on_retry: Optional[Callable[[str, int, float, SwarmError], None]] = None,
        ca_file: Optional[str] = None,
    ):
        if not url.startswith(("http://", "https://")):
            raise SwarmError(
                0, "invalid_request_error", "invalid_url", f"url must start with http:// or https:// (got {url!r})"
            )
        if not join_token:
            raise SwarmError(0, "invalid_request_error", "missing_token", "join_token is required")
        self.url = url.rstrip("/")
        self.join_token = join_token
        self.client_id = client_id or f"py-{os.getpid()}-{random.getrandbits(32):08x}"
        self.code_version = code_version
        self.deadline_s = deadline_s
        self.initial_delay_s = initial_delay_s
        self.max_delay_s = max_delay_s
        self.request_timeout_s = request_timeout_s
        self.on_retry = on_retry
        #: A CA bundle or the worker's self-signed certificate (PEM) to trust for https (default AGENTJET_CA_FILE).
        self.ca_file = ca_file

    @classmethod
    def from_env(cls, **kwargs: Any) -> SwarmClient:
        """A client from AGENTJET_SERVER_URL (as the client runner sets it), AGENTJET_JOIN_TOKEN and
        (optionally) AGENTJET_CLIENT_ID."""
        url, token = os.environ.get("AGENTJET_SERVER_URL"), os.environ.get("AGENTJET_JOIN_TOKEN")
        if not url or not token:
            raise SwarmError(
                0, "invalid_request_error", "missing_env", "set AGENTJET_SERVER_URL and AGENTJET_JOIN_TOKEN"
            )
        kwargs.setdefault("client_id", os.environ.get("AGENTJET_CLIENT_ID"))
        kwargs.setdefault("code_version", os.environ.get("AGENTJET_CODE_VERSION"))
        return cls(url, token, **kwargs)

    def _call(self, method: str, path: str, body: Any, what: str, deadline_s: Optional[float] = None) -> Any:
        t0 = time.monotonic()
        deadline = t0 + (self.deadline_s if deadline_s is None else deadline_s)
        attempt = 0
        while True:
            try:
                return _http_json(
                    method, self.url + path, self.join_token, body, self.request_timeout_s, what, self.ca_file
                )
            except SwarmError as e:
                if not e.retryable:
                    raise
                delay = backoff_s(attempt, e.retry_after_s, self.initial_delay_s, self.max_delay_s)
                if time.monotonic() + delay > deadline:
                    e.message = f"{e.message} (gave up after {attempt + 1} attempts in {time.monotonic() - t0:.1f} s)"
                    e.args = (e.message,)
                    raise
                if self.on_retry:
                    self.on_retry(what, attempt, delay, e)
                time.sleep(delay)
                attempt += 1

    def claim(
        self,
        kind: str = "train",
        task_id: Optional[str] = None,
        timeout_s: Optional[float] = None,
        deadline_s: Optional[float] = None,
        role: Optional[str] = None,
    ) -> Claim:
        """Claims an episode. ``role``: the role it plays when one model plays several (its REINFORCE baseline
        is per role)."""
        body: Dict[str, Any] = {"clientId": self.client_id, "kind": kind}
        if self.code_version:
            body["codeVersion"] = self.code_version
        if task_id is not None:
            body["taskId"] = task_id
        if role is not None:
            body["role"] = role
        if timeout_s is not None:
            body["timeoutS"] = timeout_s
        d = _check(
            self._call("POST", "/swarm/v1/episodes", body, "claim", deadline_s),
            "claim",
            episodeId=str,
            baseUrl=str,
            apiKey=str,
            model=str,
            weightVersion=int,
            kind=str,
            timeoutS=(int, float),
        )
        return Claim(
            d["episodeId"], d["baseUrl"], d["apiKey"], d["model"], d["weightVersion"], d["kind"], float(d["timeoutS"])
        )

    def end(
        self,
        episode_id: str,
        task_id: str,
        reward: float,
        success: Optional[bool] = None,
        metrics: Optional[Dict[str, float]] = None,
    ) -> Dict[str, Any]:
        body: Dict[str, Any] = {"taskId": task_id, "reward": float(reward)}
        if success is not None:
            body["success"] = bool(success)
        if metrics:
            body["metrics"] = {k: float(v) for k, v in metrics.items()}
        path = f"/swarm/v1/episodes/{urllib.parse.quote(episode_id, safe='')}/end"
        return _check(
            self._call("POST", path, body, "end"), "end", episodeId=str, accepted=bool, pooled=bool, calls=int
        )

    def abort(
        self, episode_id: str, reason: Optional[str] = None, deadline_s: Optional[float] = None
    ) -> Dict[str, Any]:
        body = {"reason": reason[:500]} if reason else {}
        path = f"/swarm/v1/episodes/{urllib.parse.quote(episode_id, safe='')}/abort"
        return _check(self._call("POST", path, body, "abort", deadline_s), "abort", episodeId=str, aborted=bool)

    def agree_sync(self) -> Dict[str, Any]:
        path = f"/swarm/v1/clients/{urllib.parse.quote(self.client_id, safe='')}/agree-sync"
        return _check(
            self._call("POST", path, {}, "agree-sync"), "agree-sync", clientId=str, agreed=bool, progress=dict
        )

    def register(self, name: Optional[str] = None) -> Dict[str, Any]:
        body: Dict[str, Any] = {"clientId": self.client_id}
        if name:
            body["name"] = name
        return _check(self._call("POST", "/swarm/v1/clients", body, "register"), "register", clientId=str)

    def leave(self) -> Dict[str, Any]:
        path = f"/swarm/v1/clients/{urllib.parse.quote(self.client_id, safe='')}/leave"
        return _check(self._call("POST", path, {}, "leave"), "leave", clientId=str, left=bool)

    def status(self) -> Dict[str, Any]:
        return _check(
            self._call("GET", "/swarm/v1/status", None, "status"),
            "status",
            state=str,
            step=int,
            weightVersion=int,
            counters=dict,
            clients=list,
        )

    def episode(
        self,
        task_id: str,
        fn: Optional[Callable[[Episode], Any]] = None,
        kind: str = "train",
        deadline_s: Optional[float] = None,
        timeout_s: Optional[float] = None,
        role: Optional[str] = None,
    ) -> Any:
        """Function form: ``episode(task_id, fn)`` runs ``fn(ep)`` and ends with its ``{reward, success?, metrics?}``
        (or a bare number), returning the end answer; aborts and re-raises if fn raises, raises SwarmError
        ``episode_deadline`` past the deadline. Without ``fn``: returns the Episode, a context manager."""
        claim = self.claim(kind=kind, task_id=task_id, timeout_s=timeout_s, role=role)
        ep = Episode(self, task_id, claim, deadline_s)
        if fn is None:
            return ep
        with ep:
            out = fn(ep)
            if ep.deadline_passed:
                ep._check_open()
            if isinstance(out, (int, float)) and not isinstance(out, bool):
                return ep.end(float(out))
            if not isinstance(out, dict) or not isinstance(out.get("reward"), (int, float)):
                raise SwarmError(
                    400,
                    "invalid_request_error",
                    "invalid_result",
                    f"episode fn must return a number or {{'reward': ...}}, got {out!r}",
                )
            return ep.end(out["reward"], success=out.get("success"), metrics=out.get("metrics"))


# ---------------------------------------------------------------------------------------------
# OpenAI-compatible chat
# ---------------------------------------------------------------------------------------------


def chat(
    base_url: str,
    api_key: str,
    messages: List[Dict[str, Any]],
    tools: Optional[List[Dict[str, Any]]] = None,
    timeout_s: float = 300.0,
    max_retries: int = 2,
    ca_file: Optional[str] = None,
    **params: Any,
) -> Dict[str, Any]:
    """POST {base_url}/chat/completions (OpenAI-compatible) and return the parsed answer.

    ``params`` are passed through (model, max_tokens, temperature, tool_choice, …). A 503 (the engine
    restarting) is retried up to ``max_retries`` times, as the openai SDK does; other errors raise SwarmError.
    ``ca_file`` (default AGENTJET_CA_FILE) is trusted for an https worker.
    """
    body: Dict[str, Any] = {"messages": messages, **params}
    if tools is not None:
        body["tools"] = tools
    url = base_url.rstrip("/") + "/chat/completions"
    for attempt in range(max_retries + 1):
        try:
            answer = _http_json("POST", url, api_key, body, timeout_s, "chat", ca_file)
            return _check(answer, "chat", choices=list)
        except SwarmError as e:
            if e.status != 503 or attempt == max_retries:
                raise
            time.sleep(backoff_s(attempt, e.retry_after_s, 0.5, 10.0))
    raise AssertionError("unreachable")
