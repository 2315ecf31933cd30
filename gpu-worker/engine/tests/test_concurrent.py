"""Protocol v2 over the real process: answers by id out of order, streamed deltas, cancel, exclusive
training calls that wait for the running generations, and EOF while busy."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_stdio import EngineProcess, error_of


class Client:
    """Sends frames with chosen ids and collects every frame that comes back, by id."""

    def __init__(self, proc: EngineProcess) -> None:
        self.proc = proc
        self.frames: list[dict[str, Any]] = []

    def send(self, request_id: Any, method: str, params: Any = None) -> None:
        request: dict[str, Any] = {"id": request_id, "method": method}
        if params is not None:
            request["params"] = params
        self.proc.send_payload(json.dumps(request).encode())

    def until(self, predicate: Any, timeout: float = 120) -> dict[str, Any]:
        """Reads frames until one satisfies `predicate`; returns it (every frame is kept)."""
        deadline = time.monotonic() + timeout
        while True:
            frame = self.proc.response(timeout=max(0.1, deadline - time.monotonic()))
            assert frame is not None, "the engine closed its output"
            self.frames.append(frame)
            if predicate(frame):
                return frame

    def final(self, request_id: Any, timeout: float = 120) -> dict[str, Any]:
        return self.until(lambda f: f["id"] == request_id and "delta" not in f, timeout)

    def order(self) -> list[Any]:
        return [f["id"] for f in self.frames if "delta" not in f]


@pytest.fixture(scope="module")
def client(model_dir: Path) -> Iterator[Client]:
    p = EngineProcess()
    c = Client(p)
    c.send("load", "load", {"path": str(model_dir), "threads": 1})
    assert "result" in c.final("load")
    c.send("render", "render", {"messages": [{"role": "user", "content": "What is 7 * 8?"}]})
    c.prompt = c.final("render")["result"]["tokenIds"]  # type: ignore[attr-defined]
    yield c
    if p.proc.poll() is None:
        p.proc.kill()
        p.proc.wait()


def long_generation(prompt: list[int], seed: int = 0, tokens: int = 200, stream: bool = True) -> dict[str, Any]:
    return {
        "requests": [{"promptIds": prompt, "maxTokens": tokens, "temperature": 1.0, "seed": seed, "stopIds": []}],
        "stream": stream,
    }


def test_light_requests_are_answered_while_a_generation_runs(client: Client) -> None:
    client.frames.clear()
    client.send("g1", "generate", long_generation(client.prompt))  # type: ignore[attr-defined]
    first = client.until(lambda f: f["id"] == "g1" and "delta" in f)
    assert first["delta"]["index"] == 0 and len(first["delta"]["tokenIds"]) >= 1
    client.send("r1", "render", {"messages": [{"role": "user", "content": "hi"}]})
    client.send("d1", "decode", {"sequences": [[5, 6, 7]]})
    client.send("i1", "info")
    client.send("l1", "logprobs", {"sequences": [{"tokenIds": client.prompt}]})  # type: ignore[attr-defined]
    client.send("s1", "cache_stats")
    result = client.final("g1")
    order = client.order()
    assert order.index("g1") == len(order) - 1, order  # every light request came back first
    for rid in ("r1", "d1", "i1", "l1", "s1"):
        assert rid in order
    stats = next(f for f in client.frames if f["id"] == "s1")["result"]
    assert stats["batch"]["active"] == 1
    # the deltas add up to the final answer
    deltas = [f["delta"] for f in client.frames if f["id"] == "g1" and "delta" in f]
    generation = result["result"]["results"][0]
    assert [t for d in deltas for t in d["tokenIds"]] == generation["tokenIds"]
    assert [x for d in deltas for x in d["logprobs"]] == generation["logprobs"]
    assert "".join(d["text"] for d in deltas) == generation["text"]
    assert generation["finishReason"] == "length" and len(generation["tokenIds"]) == 200


def test_cancel_frees_the_request(client: Client) -> None:
    client.frames.clear()
    client.send(41, "generate", long_generation(client.prompt, seed=1))  # type: ignore[attr-defined]
    client.until(lambda f: f["id"] == 41 and "delta" in f)
    client.send(42, "cancel", {"requestId": 41})
    cancelled = client.final(41)
    assert error_of(cancelled) == ("cancelled", "cancelled")
    assert client.final(42)["result"] == {"cancelled": True}
    client.send(43, "cancel", {"requestId": 41})
    assert client.final(43)["result"] == {"cancelled": False}
    client.send(44, "cancel", {})
    assert error_of(client.final(44))[0] == "invalid_params"
    client.send(45, "cache_stats")
    assert client.final(45)["result"]["batch"]["active"] == 0


def test_training_waits_for_running_generations_and_later_calls_follow_it(client: Client) -> None:
    client.frames.clear()
    prompt = client.prompt  # type: ignore[attr-defined]
    client.send("before", "generate", long_generation(prompt, seed=2, tokens=120))
    client.until(lambda f: f["id"] == "before" and "delta" in f)
    ids = prompt + [5, 6, 7, 8]
    sample = {
        "tokenIds": ids,
        "lossMask": [0] * len(prompt) + [1] * 4,
        "advantages": 1.0,
        "rolloutLogprobs": [0.0] * len(ids),
    }
    client.send("train", "train_step", {"samples": [sample], "hyper": {"lr": 1e-3}})
    client.send("after", "generate", long_generation(prompt, seed=3, tokens=4, stream=False))
    client.send("info", "info")
    after = client.final("after")
    order = client.order()
    assert order.index("info") < order.index("before") < order.index("train") < order.index("after"), order
    before = next(f for f in client.frames if f["id"] == "before" and "delta" not in f)
    version = next(f for f in client.frames if f["id"] == "train")["result"]["weightVersion"]
    assert after["result"]["weightVersion"] == version == before["result"]["weightVersion"] + 1
    client.send("stats", "cache_stats")
    assert client.final("stats")["result"]["prefixCache"]["clears"] >= 1  # the weights changed


def test_bad_frames_and_duplicate_ids_while_generating(client: Client) -> None:
    client.frames.clear()
    client.send("dup", "generate", long_generation(client.prompt, seed=4, tokens=60))  # type: ignore[attr-defined]
    client.until(lambda f: f["id"] == "dup" and "delta" in f)
    client.proc.send_payload(b"not json")
    bad = client.until(lambda f: f["id"] is None)
    assert error_of(bad) == ("protocol", "bad_json")
    client.send("dup", "generate", long_generation(client.prompt, seed=5, tokens=4))  # type: ignore[attr-defined]
    duplicate = client.until(lambda f: f["id"] == "dup" and "error" in f)
    assert error_of(duplicate) == ("protocol", "duplicate_id")
    assert "result" in client.final("dup")


def test_eof_while_generating_exits_promptly(model_dir: Path) -> None:
    p = EngineProcess()
    c = Client(p)
    try:
        c.send(1, "load", {"path": str(model_dir), "threads": 1})
        c.final(1)
        c.send(
            2,
            "generate",
            {
                "requests": [
                    {"promptIds": [5] * 10, "maxTokens": 240, "temperature": 1.0, "stopIds": []} for _ in range(8)
                ],
                "stream": True,
            },
        )
        c.until(lambda f: f["id"] == 2 and "delta" in f)
        assert p.proc.stdin is not None
        p.proc.stdin.close()
        assert p.proc.wait(timeout=30) == 0
    finally:
        if p.proc.poll() is None:
            p.proc.kill()
            p.proc.wait()
