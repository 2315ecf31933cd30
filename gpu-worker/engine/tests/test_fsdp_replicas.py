"""FSDP ranks beside a rollout replica (issue #21 §1): loaded with `inferenceCopy: false`, as the worker loads
its trainer when replicas generate, rank 0 keeps no full inference copy — it only trains and syncs. The
figure is the engine's own `inferenceCopyBytes` (0, against a full copy's worth in the usual FSDP load); the
push gathers the full tensors from the shards (a collective) and the replica then scores like a single
process after the same step; generation on the trainer is refused with a clear error."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agentjet_engine.engine import Engine
from ranks import RankedEngine
from test_fsdp import HYPER, max_diff, off_policy
from test_weight_sync import Proc


def test_rank0_keeps_no_inference_copy_and_still_syncs_the_replica(
    make_engine: Callable[..., Engine], model_dir: Path, corpus: list
) -> None:
    ranks = RankedEngine(2)
    replica = Proc()
    try:
        one = make_engine()
        samples = off_policy(one, corpus)
        load = {"path": str(model_dir), "seed": 0, "threads": 1}
        usual = ranks.call("load", load, timeout=300)["inferenceCopyBytes"]  # the usual FSDP load: a full copy
        assert usual >= 4 * one.info()["params"]  # fp32 on CPU: every parameter
        info = ranks.call("load", {**load, "inferenceCopy": False}, timeout=300)
        assert info["worldSize"] == 2 and info["inferenceCopyBytes"] == 0
        print(f"rank 0 inference copy: {usual} bytes in the usual FSDP load, 0 with inferenceCopy: false")
        refused = ranks.send("generate", {"requests": [{"promptIds": [5, 9, 17], "maxTokens": 2}]})
        assert ranks.response()["error"]["code"] == "no_inference_copy" and refused > 0

        replica.call("load", {**load, "role": "replica"})
        port = ranks.call("sync_open", {})["port"]
        a = ranks.send("sync_join", {"link": "r0.g0", "rank": 0, "timeoutS": 60})
        b = replica.send("sync_join", {"link": "r0.g0", "rank": 1, "host": "127.0.0.1", "port": port, "timeoutS": 60})
        assert "result" in ranks.response() and "result" in replica.wait(b) and a > 0

        one.train_step({"samples": samples, "hyper": HYPER})
        ranks.call("train_step", {"samples": samples, "hyper": HYPER}, timeout=300)
        pull = replica.send("sync_pull", {"link": "r0.g0"})
        pushed = ranks.call("sync_push", {"links": ["r0.g0"]}, timeout=300)
        assert pushed["failed"] == [] and pushed["weightVersion"] == 1 and "result" in replica.wait(pull)
        seqs = {"sequences": [{"tokenIds": s["tokenIds"]} for s in samples]}
        got = replica.call("logprobs", seqs)["logprobs"]
        want = one.logprobs(seqs)["logprobs"]
        assert max_diff(got, want) < 1e-4
    finally:
        replica.close()
        assert ranks.close() == 0, "\n".join(ranks.log[-20:])
