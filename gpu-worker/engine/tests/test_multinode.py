"""A trainer group over two "nodes" on this machine (issue #21 §2: --nnodes, --node-rank, --rdzv-endpoint):
node 0's launcher and node 1's each start one rank, joined through torchrun's static rendezvous on a
loopback port, as the worker (node 0) and `agentjet worker --node-rank 1` start them. Rank 0 (on node 0)
speaks the frames; node 1's rank follows it. The step matches one process, and node 1's launcher exits
cleanly when node 0 closes the group."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

from agentjet_engine.engine import Engine
from ranks import RankedEngine
from test_fsdp import HYPER, max_diff, off_policy, rel, scores


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_two_nodes_over_loopback_train_like_one_process(
    make_engine: Callable[..., Engine], model_dir: Path, corpus: list
) -> None:
    endpoint = f"127.0.0.1:{free_port()}"
    node0 = RankedEngine(1, nodes=(2, 0, endpoint))
    node1 = RankedEngine(1, nodes=(2, 1, endpoint))  # never spoken to: its rank follows rank 0
    try:
        one = make_engine()
        samples = off_policy(one, corpus)
        info = node0.call("load", {"path": str(model_dir), "seed": 0, "threads": 1}, timeout=300)
        assert info["worldSize"] == 2 and len(set(info["rankPids"])) == 2
        assert node1.proc.pid != node0.proc.pid
        a = one.train_step({"samples": samples, "hyper": HYPER})
        b = node0.call("train_step", {"samples": samples, "hyper": HYPER}, timeout=300)
        assert b["worldSize"] == 2
        for key in ("loss", "gradNorm"):
            assert rel(a[key], b[key]) < 1e-5, key
        assert max_diff(scores(node0, samples), scores(one, samples)) < 1e-4
        assert node0.close() == 0, "\n".join(node0.log[-20:])
        assert node1.proc.wait(120) == 0, "\n".join(node1.log[-20:])
    finally:
        node0.close()
        node1.close()
