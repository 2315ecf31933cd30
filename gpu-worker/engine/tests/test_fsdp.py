"""FSDP2 over 2 gloo ranks (torchrun, the worker's way of starting them) against one process: the same
loss and gradient norm, the same weights after an update (rank 0's inference copy), checkpoints
across rank counts (2 → 1 and 1 → 2 through torch.distributed.checkpoint), LoRA sharded with the
adapter-off KL reference, and a rank that dies mid-step answered with a clear error."""

from __future__ import annotations

import math
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from agentjet_engine.engine import Engine
from agentjet_engine.trainer import assign_batches
from ranks import RankedEngine
from test_train import make_samples

HYPER = {"lr": 3e-3, "microBatchTokens": 64, "clipHigh": 0.28}


def rel(a: float, b: float) -> float:
    return abs(a - b) / max(abs(a), 1e-12)


def off_policy(engine: Engine, corpus: list[dict[str, Any]], n: int = 5) -> list[dict[str, Any]]:
    """Samples with stale rollout logprobs (ratios on both sides of the clip range) and mixed advantages."""
    samples = make_samples(engine, corpus, n)
    for k, s in enumerate(samples):
        s["rolloutLogprobs"] = [v + 0.3 * math.sin(i + k) for i, v in enumerate(s["rolloutLogprobs"])]
        s["advantages"] = [1.0, -0.7, 0.4, -1.2, 0.9][k % 5]
    return samples


def test_micro_batches_are_balanced_over_ranks() -> None:
    sizes = [100, 90, 80, 30, 20, 10, 10]
    batches = [[0], [1], [2], [3, 4], [5, 6]]
    share = assign_batches(batches, sizes, 2)
    assert sorted(b for rank in share for b in map(tuple, rank)) == sorted(map(tuple, batches))
    loads = [sum(len(b) * max(sizes[i] for i in b) for b in rank) for rank in share]
    assert sorted(loads) == [170, 180]  # padded tokens 100+60+20 vs 90+80
    assert assign_batches([[0]], [5], 3) == [[[0]], [], []]  # idle ranks get padding passes


@pytest.fixture(scope="module")
def ranks() -> Iterator[RankedEngine]:
    """One 2-rank engine for the module (starting one takes a while); the last test kills a rank."""
    engine = RankedEngine(2)
    try:
        yield engine
    finally:
        code = engine.close()
        assert code == 0 or engine.killed, "\n".join(engine.log[-20:])


def scores(engine: Engine | RankedEngine, samples: list[dict[str, Any]]) -> list[list[float]]:
    return (
        engine.call("logprobs", {"sequences": [{"tokenIds": s["tokenIds"]} for s in samples]})["logprobs"]
        if isinstance(engine, RankedEngine)
        else engine.logprobs({"sequences": [{"tokenIds": s["tokenIds"]} for s in samples]})["logprobs"]
    )


def max_diff(a: list[list[float]], b: list[list[float]]) -> float:
    return max(abs(x - y) for ra, rb in zip(a, b) for x, y in zip(ra, rb))


def test_two_ranks_train_like_one_process(
    ranks: RankedEngine, make_engine: Callable[..., Engine], model_dir: Path, corpus: list, tmp_path: Path
) -> None:
    one = make_engine()
    samples = off_policy(one, corpus)
    info = ranks.call("load", {"path": str(model_dir), "seed": 0, "threads": 1})
    assert info["worldSize"] == 2 and len(set(info["rankPids"])) == 2
    assert max_diff(scores(ranks, samples), scores(one, samples)) < 1e-6

    a = one.train_step({"samples": samples, "hyper": HYPER})
    b = ranks.call("train_step", {"samples": samples, "hyper": HYPER})
    print(
        f"1 process: loss {a['loss']:.6g} gradNorm {a['gradNorm']:.6g}; 2 ranks: loss {b['loss']:.6g} "
        f"gradNorm {b['gradNorm']:.6g}"
    )
    assert b["microBatches"] == a["microBatches"] > 2 and b["worldSize"] == 2 and a["gradNorm"] > 0
    for key in ("loss", "gradNorm", "entropy", "approxKl", "clipFraction"):
        assert rel(a[key], b[key]) < 1e-5, key
    # each rank holds half of the parameters and optimizer state
    per_rank = b["rankMemory"]
    assert len(per_rank) == 2 and all(r["paramBytes"] <= 0.55 * a["rankMemory"][0]["paramBytes"] for r in per_rank)
    assert all(r["optimizerBytes"] <= 0.55 * a["rankMemory"][0]["optimizerBytes"] for r in per_rank)
    # the update reached rank 0's inference copy: logprobs equal the single process's after its step
    assert max_diff(scores(ranks, samples), scores(one, samples)) < 1e-4

    # 2 → 1: the sharded checkpoint restores into one process
    ranks.call("save", {"path": str(tmp_path / "two")})
    restored = make_engine()
    assert restored.restore({"path": str(tmp_path / "two")})["weightVersion"] == 1
    assert max_diff(scores(restored, samples), scores(ranks, samples)) < 1e-6
    # 1 → 2: the single-process checkpoint restores into the two ranks, and the next steps agree
    one.save({"path": str(tmp_path / "one")})
    assert ranks.call("restore", {"path": str(tmp_path / "one")})["weightVersion"] == 1
    a2 = one.train_step({"samples": samples, "hyper": HYPER})
    b2 = ranks.call("train_step", {"samples": samples, "hyper": HYPER})
    for key in ("loss", "gradNorm"):
        assert rel(a2[key], b2[key]) < 1e-5, key  # same weights and AdamW moments after the round trip


def test_lora_sharded_with_adapter_off_reference(
    ranks: RankedEngine, make_engine: Callable[..., Engine], model_dir: Path, corpus: list
) -> None:
    lora = {"r": 4, "alpha": 8}
    one = make_engine(lora=lora)
    samples = off_policy(one, corpus, 4)
    info = ranks.call("load", {"path": str(model_dir), "seed": 0, "threads": 1, "lora": lora})
    assert info["lora"] and info["trainableParams"] == one.info()["trainableParams"]
    hyper = {**HYPER, "klCoef": 0.2, "lr": 1e-2}
    for _ in range(2):  # the second step has a non-zero KL (adapter on vs off)
        a = one.train_step({"samples": samples, "hyper": hyper})
        b = ranks.call("train_step", {"samples": samples, "hyper": hyper})
        for key in ("loss", "gradNorm", "klLoss"):
            assert rel(a[key], b[key]) < 1e-5 or abs(a[key] - b[key]) < 1e-9, key
    assert a["klLoss"] > 0
    assert max_diff(scores(ranks, samples), scores(one, samples)) < 1e-4


def test_two_ranks_distil_like_one_process(
    ranks: RankedEngine, make_engine: Callable[..., Engine], model_dir: Path, corpus: list
) -> None:
    """The teacher-top-k term (an odd sample count, so a rank may run the idle sample) agrees too."""
    one = make_engine()
    samples = off_policy(one, corpus, 5)
    tops = one.logprobs({"sequences": [{"tokenIds": s["tokenIds"]} for s in samples], "topK": 6})["top"]
    for s, top in zip(samples, tops):  # a teacher that disagrees: its odds flattened
        s["teacherTop"] = {"ids": top["ids"], "logprobs": [[0.5 * v for v in row] for row in top["logprobs"]]}
    ranks.call("load", {"path": str(model_dir), "seed": 0, "threads": 1})
    hyper = {**HYPER, "distillCoef": 0.5}
    a = one.train_step({"samples": samples, "hyper": hyper})
    b = ranks.call("train_step", {"samples": samples, "hyper": hyper})
    assert a["distillKl"] > 0
    for key in ("loss", "gradNorm", "distillKl"):
        assert rel(a[key], b[key]) < 1e-5, key
    assert max_diff(scores(ranks, samples), scores(one, samples)) < 1e-4


def test_a_rank_killed_mid_step_is_a_clear_error(
    ranks: RankedEngine, model_dir: Path, make_engine: Callable[..., Engine], corpus: list
) -> None:
    info = ranks.call("load", {"path": str(model_dir), "seed": 0, "threads": 1})
    follower = info["rankPids"][1]
    samples = off_policy(make_engine(), corpus, 2)
    ranks.killed = True
    os.kill(follower, signal.SIGSTOP)  # rank 1 stops answering …
    request = ranks.send("train_step", {"samples": samples, "hyper": HYPER})
    time.sleep(0.5)  # … rank 0 waits in the step's first collective
    os.kill(follower, signal.SIGKILL)  # … and then rank 1 dies
    response = ranks.response(timeout=60)
    assert response is not None and response["id"] == request, response
    assert response["error"]["code"] == "rank_failed", response
    assert "train_step" in response["error"]["message"] and "restart" in response["error"]["message"]
    ranks.proc.wait(60)  # the engine then exits, for the worker to restart it
    assert ranks.proc.returncode != 0
