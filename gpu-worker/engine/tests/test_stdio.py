"""The real process: `python -m agentjet_engine` over stdio frames survives bad input and keeps serving."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agentjet_engine.framing import read_frame_from

ENGINE_ROOT = Path(__file__).resolve().parents[1]


class EngineProcess:
    """A spawned engine with a reader thread, so every wait has a timeout."""

    def __init__(self) -> None:
        env = {**os.environ, "AGENTJET_ENGINE_THREADS": "1", "AGENTJET_ENGINE_LOG": "WARNING"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "agentjet_engine"],
            cwd=ENGINE_ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.frames: queue.Queue[Any] = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        while (frame := read_frame_from(self.proc.stdout)) is not None:
            self.frames.put(frame)
        self.frames.put(None)

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send_payload(self, payload: bytes) -> None:
        self.send_raw(len(payload).to_bytes(4, "big") + payload)

    def response(self, timeout: float = 60) -> Any:
        return self.frames.get(timeout=timeout)

    def call(self, method: str, params: Any = None, timeout: float = 60) -> dict[str, Any]:
        self.next_id += 1
        request: dict[str, Any] = {"id": self.next_id, "method": method}
        if params is not None:
            request["params"] = params
        self.send_payload(json.dumps(request).encode())
        response = self.response(timeout)
        assert response["id"] == self.next_id
        return response


@pytest.fixture(scope="module")
def proc() -> Iterator[EngineProcess]:
    p = EngineProcess()
    yield p
    if p.proc.poll() is None:
        p.proc.kill()
        p.proc.wait()


def assert_alive(p: EngineProcess) -> None:
    assert "result" in p.call("info")


def error_of(response: dict[str, Any]) -> tuple[str, str]:
    assert "error" in response and "result" not in response, response
    assert set(response["error"]) == {"type", "code", "message"} and response["error"]["message"]
    return response["error"]["type"], response["error"]["code"]


def test_info_before_load(proc: EngineProcess) -> None:
    info = proc.call("info")["result"]
    assert info["loaded"] is False and info["model"] is None and info["threads"] == 1


@pytest.mark.parametrize(
    "payload, code",
    [
        (b"\xff\xfe\x00garbage", "bad_utf8"),
        (b"this is not json", "bad_json"),
        (b"[1, 2, 3]", "not_object"),
        (b'"a string"', "not_object"),
        (b'{"method": "info"}', "bad_id"),
        (b"", "bad_json"),
    ],
)
def test_bad_frames_get_protocol_errors(proc: EngineProcess, payload: bytes, code: str) -> None:
    proc.send_payload(payload)
    response = proc.response()
    assert response["id"] is None and error_of(response) == ("protocol", code)
    assert_alive(proc)


def test_request_level_errors_carry_the_id(proc: EngineProcess) -> None:
    assert error_of(proc.call("no_such_method")) == ("unknown_method", "unknown_method")
    assert error_of(proc.call("render", [1, 2])) == ("invalid_params", "wrong_type")
    response = proc.call("load", {"path": 5})
    assert error_of(response)[0] == "invalid_params" and response["error"]["message"].startswith("path:")
    response = proc.call("load", {"path": "/definitely/not/here"})
    assert error_of(response)[0] == "invalid_params"
    assert error_of(proc.call("generate", {"requests": []})) == ("state", "not_loaded")
    assert_alive(proc)


def deep_schema(levels: int) -> str:
    """The JSON text of a tool schema `levels` objects deep (too deep for json.dumps to write)."""
    return '{"type":"object","properties":{"a":' * (levels - 1) + '{"type":"string"}' + "}}" * (levels - 1)


def test_a_frame_too_deep_to_parse_is_answered_by_its_id(proc: EngineProcess) -> None:
    """#19 §1: a ~1000-level tool schema used to fail parsing with an id-less error (its call never settled)."""
    tool = '{"type":"function","function":{"name":"f","parameters":' + deep_schema(1000) + "}}"
    messages = json.dumps([{"role": "user", "content": "hi"}])
    request = '{"id":4242,"method":"render","params":{"messages":' + messages + ',"tools":[' + tool + "]}}"
    with pytest.raises(RecursionError):
        json.loads(request)
    proc.send_payload(request.encode())
    response = proc.response()
    assert response["id"] == 4242 and error_of(response) == ("invalid_params", "too_deep")
    assert "2004 levels deep" in response["error"]["message"]
    # Unparseable after the id: still answered by it.
    proc.send_payload(b'{"id": 4243, "method": "info", "params": {"oops"')
    response = proc.response()
    assert response["id"] == 4243 and error_of(response) == ("protocol", "bad_json")
    assert_alive(proc)


def test_oversized_length_prefix_is_refused_and_serving_continues(proc: EngineProcess) -> None:
    proc.send_raw((600 * 1024 * 1024).to_bytes(4, "big") + b'{"id": 1, "method": "info"} and more junk')
    response = proc.response()
    assert response["id"] is None and error_of(response) == ("protocol", "frame_too_large")
    assert_alive(proc)


def test_loaded_model_errors_and_recovery(proc: EngineProcess, model_dir: Path) -> None:
    info = proc.call("load", {"path": str(model_dir), "threads": 1})["result"]
    assert info["loaded"] and info["contextLength"] == 256
    ids = proc.call("render", {"messages": [{"role": "user", "content": "hi"}]})["result"]["tokenIds"]
    too_long = (ids * 100)[:300]
    response = proc.call("logprobs", {"sequences": [{"tokenIds": too_long}]})
    assert error_of(response) == ("context_overflow", "context_overflow")
    assert "sequences[0].tokenIds" in response["error"]["message"]
    response = proc.call("generate", {"requests": [{"promptIds": too_long, "maxTokens": 1, "temperature": 0}]})
    assert error_of(response)[0] == "context_overflow"
    response = proc.call("generate", {"requests": [{"promptIds": ids, "maxTokens": "many", "temperature": 0}]})
    assert error_of(response)[0] == "invalid_params"
    assert response["error"]["message"].startswith("requests[0].maxTokens:")
    result = proc.call("generate", {"requests": [{"promptIds": ids, "maxTokens": 4, "temperature": 0.8, "seed": 3}]})[
        "result"
    ]
    assert len(result["results"][0]["tokenIds"]) <= 4 and result["weightVersion"] == 0
    decoded = proc.call("decode", {"sequences": [ids], "skipSpecialTokens": False})["result"]["texts"][0]
    assert decoded == "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
    # #19 §2: deep tool-call arguments in the history are refused by field, not an internal RecursionError.
    arguments = "[" * 1000 + "]" * 1000
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": None, "tool_calls": [call]}]
    response = proc.call("render", {"messages": messages})
    assert error_of(response) == ("invalid_params", "too_deep")
    assert response["error"]["message"].startswith("messages[1].tool_calls[0].function.arguments: nests 1000 levels")
    assert "result" in proc.call("render", {"messages": [{"role": "user", "content": "hi"}]})


def test_eof_exits_cleanly(proc: EngineProcess) -> None:
    assert proc.proc.stdin is not None
    proc.proc.stdin.close()
    assert proc.proc.wait(timeout=30) == 0
