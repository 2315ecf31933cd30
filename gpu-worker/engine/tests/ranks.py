"""Test helper: the engine as N torchrun ranks (`python -m torch.distributed.run --standalone
--nproc-per-node N -m agentjet_engine`, as the worker starts it) spoken to over stdio frames."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from agentjet_engine.framing import read_frame_from

ENGINE_ROOT = Path(__file__).resolve().parents[1]


def engine_argv(procs: int, nodes: tuple[int, int, str] | None = None) -> list[str]:
    """As the worker's `engineArgv`: `nodes` = (nnodes, node rank, host:port) joins torchrun's static rendezvous."""
    if procs <= 1 and nodes is None:
        return [sys.executable, "-m", "agentjet_engine"]
    where = ["--standalone"]
    if nodes is not None:
        n, rank, endpoint = nodes
        where = [f"--nnodes={n}", f"--node-rank={rank}", "--rdzv-backend=static", f"--rdzv-endpoint={endpoint}"]
    return [
        sys.executable,
        "-m",
        "torch.distributed.run",
        *where,
        f"--nproc-per-node={procs}",
        "--monitor-interval=0.5",
        "-m",
        "agentjet_engine",
    ]


class RankedEngine:
    """A spawned (possibly multi-rank) engine; every wait has a timeout; `close()` ends it."""

    def __init__(self, procs: int, threads: int = 1, nodes: tuple[int, int, str] | None = None) -> None:
        env = {
            **os.environ,
            "AGENTJET_ENGINE_THREADS": str(threads),
            "AGENTJET_ENGINE_LOG": "INFO",
            "OMP_NUM_THREADS": str(threads),
        }
        self.log: list[str] = []
        self.proc = subprocess.Popen(
            engine_argv(procs, nodes),
            cwd=ENGINE_ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self.frames: queue.Queue[Any] = queue.Queue()
        self.next_id = 0
        self.killed = False  # set by a test that kills a rank on purpose
        threading.Thread(target=self._pump, daemon=True).start()
        threading.Thread(target=self._drain, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        while (frame := read_frame_from(self.proc.stdout)) is not None:
            self.frames.put(frame)
        self.frames.put(None)

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.log.append(line.decode("utf-8", "replace").rstrip())

    def send(self, method: str, params: Any = None) -> int:
        self.next_id += 1
        payload = json.dumps({"id": self.next_id, "method": method, "params": params or {}}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(len(payload).to_bytes(4, "big") + payload)
        self.proc.stdin.flush()
        return self.next_id

    def response(self, timeout: float = 120) -> Any:
        return self.frames.get(timeout=timeout)

    def call(self, method: str, params: Any = None, timeout: float = 120) -> Any:
        request_id = self.send(method, params)
        response = self.response(timeout)
        assert response is not None, "the engine closed its output:\n" + "\n".join(self.log[-20:])
        assert response["id"] == request_id
        if "error" in response:
            raise AssertionError(f"{method}: {response['error']}")
        return response["result"]

    def close(self, timeout: float = 60) -> int:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        return self.proc.returncode
