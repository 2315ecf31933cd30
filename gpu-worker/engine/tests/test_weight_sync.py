"""Weight sync between real engine processes over gloo: a trainer and rollout replicas joined through the
trainer's TCP rendezvous store on loopback (the two-"node" case: the replica knows only host:port)."""

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
import torch
from agentjet_engine.framing import read_frame_from
from agentjet_engine.weight_sync import buckets

ENGINE_ROOT = Path(__file__).resolve().parents[1]
PROMPT = [5, 9, 17, 33, 40, 41, 42]


class Proc:
    """An engine process; `send` returns the id, `wait(id)` that request's answer (deltas kept aside)."""

    def __init__(self, node_rank: int = 0) -> None:
        env = {**os.environ, "AGENTJET_ENGINE_THREADS": "1", "AGENTJET_ENGINE_LOG": "WARNING"}
        env["AGENTJET_NODE_RANK"] = str(node_rank)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "agentjet_engine"],
            cwd=ENGINE_ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.answers: dict[int, queue.Queue[Any]] = {}
        self.lock = threading.Lock()
        self.next_id = 0
        self.finished: list[Any] = []  # request ids in the order their answers arrived
        threading.Thread(target=self._pump, daemon=True).start()

    def _box(self, request_id: int) -> queue.Queue[Any]:
        with self.lock:
            return self.answers.setdefault(request_id, queue.Queue())

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        while (frame := read_frame_from(self.proc.stdout)) is not None:
            if "delta" not in frame:
                self.finished.append(frame.get("id"))
            self._box(frame.get("id")).put(frame)

    def send(self, method: str, params: Any) -> int:
        self.next_id += 1
        payload = json.dumps({"id": self.next_id, "method": method, "params": params}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(len(payload).to_bytes(4, "big") + payload)
        self.proc.stdin.flush()
        return self.next_id

    def wait(self, request_id: int, timeout: float = 120) -> dict[str, Any]:
        box = self._box(request_id)
        while True:
            frame = box.get(timeout=timeout)
            if "delta" not in frame:
                return frame

    def first_delta(self, request_id: int, timeout: float = 60) -> dict[str, Any]:
        return self._box(request_id).get(timeout=timeout)

    def call(self, method: str, params: Any, timeout: float = 120) -> dict[str, Any]:
        frame = self.wait(self.send(method, params), timeout)
        assert "result" in frame, frame
        return frame["result"]

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=30)


@pytest.fixture
def procs() -> Iterator[list[Proc]]:
    made: list[Proc] = []
    yield made
    for p in made:
        p.close()


def start(procs: list[Proc], model_dir: Path, node_rank: int = 0, **load: Any) -> Proc:
    p = Proc(node_rank)
    procs.append(p)
    p.call("load", {"path": str(model_dir), "seed": 0, "threads": 1, **load})
    return p


def link(trainer: Proc, replica: Proc, name: str, port: int) -> None:
    a = trainer.send("sync_join", {"link": name, "rank": 0, "timeoutS": 60})
    b = replica.send("sync_join", {"link": name, "rank": 1, "host": "127.0.0.1", "port": port, "timeoutS": 60})
    assert "result" in trainer.wait(a) and "result" in replica.wait(b)


def sync(trainer: Proc, replicas: list[tuple[Proc, str]], inflight: str = "swap") -> dict[str, Any]:
    pulls = [(r, r.send("sync_pull", {"link": name, "inflight": inflight})) for r, name in replicas]
    pushed = trainer.call("sync_push", {"links": [name for _, name in replicas]})
    for r, i in pulls:
        assert "result" in r.wait(i)
    return pushed


def greedy(p: Proc, max_tokens: int = 8) -> dict[str, Any]:
    req = {"promptIds": PROMPT, "maxTokens": max_tokens, "temperature": 0.0, "seed": 1}
    return p.call("generate", {"requests": [req]})["results"][0]


def train_once(trainer: Proc) -> None:
    ids = PROMPT + [50, 51, 52, 53]
    sample = {"tokenIds": ids, "lossMask": [0] * 7 + [1] * 4, "advantages": [1.0] * 11, "rolloutLogprobs": [-3.0] * 11}
    trainer.call("train_step", {"samples": [sample], "hyper": {"lr": 5e-2, "maxGradNorm": 0}})


def test_buckets_pack_in_order_within_the_budget() -> None:
    ts = [torch.zeros(n) for n in (10, 10, 30, 5, 1)]  # 40, 40, 120, 20, 4 bytes
    assert buckets(ts, 80) == [[0, 1], [2], [3, 4]]
    assert buckets(ts, 1) == [[0], [1], [2], [3], [4]]


def test_a_replica_on_another_node_gets_the_trained_weights(procs: list[Proc], model_dir: Path) -> None:
    trainer = start(procs, model_dir)
    replica = start(procs, model_dir, node_rank=1, role="replica")
    assert replica.call("info", {})["role"] == "replica"
    port = trainer.call("sync_open", {"host": "127.0.0.1", "port": 0})["port"]
    link(trainer, replica, "r0.g0", port)
    train_once(trainer)
    before = greedy(replica)
    want = greedy(trainer)
    assert before["logprobs"] != pytest.approx(want["logprobs"], abs=1e-6)
    pushed = sync(trainer, [(replica, "r0.g0")])
    assert pushed["failed"] == [] and pushed["pushed"][0]["bytes"] > 0 and pushed["weightVersion"] == 1
    got = greedy(replica)
    assert got["tokenIds"] == want["tokenIds"]
    assert got["logprobs"] == pytest.approx(want["logprobs"], abs=1e-5)
    assert replica.call("info", {})["weightVersion"] == 1
    error = replica.wait(replica.send("train_step", {"samples": [], "hyper": {"lr": 0.1}}))["error"]
    assert error["code"] == "replica"


def test_a_dead_replica_fails_its_link_only_and_a_restart_gets_current_weights(
    procs: list[Proc], model_dir: Path
) -> None:
    trainer = start(procs, model_dir)
    keep = start(procs, model_dir, role="replica")
    doomed = start(procs, model_dir, role="replica")
    port = trainer.call("sync_open", {})["port"]
    link(trainer, keep, "r0.g0", port)
    link(trainer, doomed, "r1.g0", port)
    doomed.close()
    train_once(trainer)
    pull = keep.send("sync_pull", {"link": "r0.g0"})
    pushed = trainer.call("sync_push", {"links": ["r1.g0", "r0.g0"]})
    assert [f["link"] for f in pushed["failed"]] == ["r1.g0"]
    assert "sync" in pushed["failed"][0]["message"]
    assert [p["link"] for p in pushed["pushed"]] == ["r0.g0"] and "result" in keep.wait(pull)
    fresh = start(procs, model_dir, role="replica")  # the restart: a new link, then the current weights
    link(trainer, fresh, "r1.g1", port)
    sync(trainer, [(fresh, "r1.g1")])
    assert greedy(fresh)["logprobs"] == pytest.approx(greedy(trainer)["logprobs"], abs=1e-5)


def test_lora_sends_the_adapter_only(procs: list[Proc], model_dir: Path) -> None:
    lora = {"r": 4, "alpha": 8}
    trainer = start(procs, model_dir, lora=lora)
    replica = start(procs, model_dir, lora=lora, role="replica")
    link(trainer, replica, "r0.g0", trainer.call("sync_open", {})["port"])
    train_once(trainer)
    pushed = sync(trainer, [(replica, "r0.g0")])["pushed"][0]
    info = trainer.call("info", {})
    assert pushed["bytes"] == 4 * info["trainableParams"] and info["trainableParams"] < info["params"] / 4
    assert greedy(replica)["logprobs"] == pytest.approx(greedy(trainer)["logprobs"], abs=1e-5)


def test_swap_under_a_running_generation_records_the_token_versions(procs: list[Proc], model_dir: Path) -> None:
    trainer = start(procs, model_dir)
    replica = start(procs, model_dir, role="replica")
    link(trainer, replica, "r0.g0", trainer.call("sync_open", {})["port"])
    req = {"promptIds": PROMPT, "maxTokens": 400, "temperature": 1.0, "seed": 3, "stopIds": []}
    gen = replica.send("generate", {"requests": [req], "stream": True})
    assert "delta" in replica.first_delta(gen)  # running
    train_once(trainer)
    sync(trainer, [(replica, "r0.g0")], inflight="swap")
    result = replica.wait(gen)["result"]
    assert result["weightVersion"] == 0  # the oldest version in it
    spans = result["results"][0]["versionSpans"]
    assert len(spans) == 1 and spans[0][1] == 1 and 0 < spans[0][0] < 400


def test_finish_lets_running_generations_end_on_the_old_weights_then_swaps(procs: list[Proc], model_dir: Path) -> None:
    trainer = start(procs, model_dir)
    replica = start(procs, model_dir, role="replica")
    link(trainer, replica, "r0.g0", trainer.call("sync_open", {})["port"])
    train_once(trainer)
    want = greedy(trainer)
    req = {"promptIds": PROMPT, "maxTokens": 400, "temperature": 1.0, "seed": 3, "stopIds": []}
    running = replica.send("generate", {"requests": [req], "stream": True})
    assert "delta" in replica.first_delta(running)
    pull = replica.send("sync_pull", {"link": "r0.g0", "inflight": "finish"})
    assert trainer.call("sync_push", {"links": ["r0.g0"]})["failed"] == []  # the replica has received them
    later = replica.send("generate", {"requests": [{**req, "maxTokens": 8, "temperature": 0.0}]})
    old = replica.wait(running)["result"]  # ends on version 0: no span of newer weights in it
    assert old["weightVersion"] == 0 and not old["results"][0].get("versionSpans")
    assert len(old["results"][0]["tokenIds"]) > 50  # long enough that the weights arrived while it ran
    assert "result" in replica.wait(pull)  # applied once the running generation finished
    new = replica.wait(later)["result"]  # admitted after the swap: all on version 1
    assert replica.finished.index(running) < replica.finished.index(pull) < replica.finished.index(later)
    assert new["weightVersion"] == 1 and not new["results"][0].get("versionSpans")
    assert new["results"][0]["logprobs"] == pytest.approx(want["logprobs"], abs=1e-5)
