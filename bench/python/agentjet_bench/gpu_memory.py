"""GPU benchmark section `memory`: peak memory and time of the engine's real train step — full
fine-tune vs LoRA (one GPU) vs FSDP over 2 GPUs — for the 1.5B / 7B shapes at 4k / 8k / 16k tokens,
beside the memory estimator's prediction (memory_plan.py). Rows the estimator says cannot fit the
free memory are listed as skipped; an out-of-memory error is reported as such.

Each (shape, mode) builds a random-init model on the GPU the way `load` does (full fine-tune: fp32
master weights under bf16 autocast; LoRA r=16 on every linear layer over a bf16 base), a `Trainer`
with activation checkpointing and chunked logprobs, takes a 1k-token step (AdamW states exist from
then on) and then one measured step per length: `peakMemoryBytes` is `torch.cuda.max_memory_allocated`
during that step. FSDP rows run `python -m torch.distributed.run --nproc-per-node 2 -m
agentjet_bench.gpu_memory --fsdp …` (needs 2 visible GPUs; with `--smoke`, 2 gloo ranks on CPU).
Registered in gpu.py as `register("memory", memory_section)`.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from typing import Any

import torch
from agentjet_engine.distributed import RankGroup, start_from_env
from agentjet_engine.memory_plan import GiB, PlanRequest, Setup, decoder_shape, estimate, plan_training

from . import BENCH_PYTHON_DIR

LENGTHS = (4096, 8192, 16384)
SMOKE_LENGTHS = (64, 128)


def _shapes() -> dict[str, dict[str, int]]:
    from .gpu import SHAPES

    return SHAPES


def build_trainer(shape: str, mode: str, device: torch.device, group: RankGroup, tokens: int) -> Any:
    """A Trainer over a random-init model of `shape`, as `load` + the plan would set it up."""
    from agentjet_engine.loading import LoadedModel, LoadOptions, LoraOptions, _apply_lora, fp32_output_head
    from agentjet_engine.trainer import Trainer

    from .random_model import build, qwen2_config

    size = _shapes()[shape]
    config = qwen2_config(size, 32768, tied=False, attention="agentjet_sdpa")
    compute = torch.bfloat16 if device.type == "cuda" else torch.float32
    storage = compute if mode == "lora" else torch.float32
    model = build(config, device, storage, seed=0)
    if compute != torch.float32 and storage == torch.float32:
        fp32_output_head(model)  # fp32 storage, bf16 compute: the head still computes in fp32
    lora = LoraOptions(r=16, alpha=32.0) if mode == "lora" else None
    if lora is not None:
        model = _apply_lora(model, lora)
    model.eval()
    options = LoadOptions(path=f"<random {shape}>", device=device.type, lora=lora)
    loaded = LoadedModel(
        options=options,
        model=model,
        tokenizer=None,
        device=device,
        compute_dtype=compute,
        eos_ids=[],
        pad_id=0,
        context_length=32768,
        vocab_size=size["vocab_size"],
    )
    plan = plan_training(
        model_shape_of(shape),
        2**62,
        PlanRequest(mode=mode, checkpointing=True, micro_batch_tokens=tokens, world_size=group.world_size),
    )
    return Trainer(loaded, plan, group)


def model_shape_of(shape: str) -> Any:
    s = _shapes()[shape]
    return decoder_shape(
        s["hidden_size"],
        s["num_hidden_layers"],
        s["num_attention_heads"],
        s["num_key_value_heads"],
        s["intermediate_size"],
        s["vocab_size"],
        tied=False,
    )


def step(trainer: Any, tokens: int, vocab: int, seed: int) -> dict[str, Any]:
    from agentjet_engine.training import Hyper, Sample

    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(3, vocab, (tokens,), generator=g).tolist()
    sample = Sample(ids, [0] + [1] * (tokens - 1), [1.0] * tokens, [-12.0] * tokens)
    started = time.perf_counter()
    stats = trainer.train_step([sample], Hyper(lr=1e-6, micro_batch_tokens=tokens))
    return {
        "seconds": round(time.perf_counter() - started, 2),
        "peakBytes": stats["peakMemoryBytes"],
        "stateBytes": sum(r["paramBytes"] + r["optimizerBytes"] for r in stats["rankMemory"][:1]),
        "loss": stats["loss"],
    }


def _free_bytes(device: torch.device) -> int:
    if device.type == "cuda":
        return int(torch.cuda.mem_get_info(device)[0])
    from agentjet_engine.loading import memory_budget

    return memory_budget(device)


def measure_rows(
    shape: str, mode: str, device: torch.device, group: RankGroup, lengths: tuple[int, ...], log: Any
) -> list[dict[str, Any]]:
    """One row per length for (shape, mode) on `group`'s ranks (rank 0's figures)."""
    est = {
        n: estimate(
            model_shape_of(shape),
            Setup(
                mode=mode,
                micro_batch_tokens=n,
                checkpointing=True,
                compute_bytes=2 if device.type == "cuda" else 4,
                world_size=group.world_size,
            ),
        )
        for n in lengths
    }
    free = _free_bytes(device)
    fits = [n for n in lengths if est[n].total <= free]
    rows = [
        {
            "shape": shape,
            "mode": mode,
            "ranks": group.world_size,
            "tokens": n,
            "skipped": True,
            "estimateGiB": round(est[n].total / GiB, 1),
            "why": f"estimated {est[n].total / GiB:.1f} GiB > free {free / GiB:.1f} GiB",
        }
        for n in lengths
        if n not in fits
    ]
    if not fits:
        return rows
    trainer = None
    try:
        trainer = build_trainer(shape, mode, device, group, max(fits))
        vocab = _shapes()[shape]["vocab_size"]
        step(trainer, min(1024, min(fits)), vocab, 0)  # AdamW states exist from here on
        for n in fits:
            try:
                r = step(trainer, n, vocab, n)
                rows.append(
                    {
                        "shape": shape,
                        "mode": mode,
                        "ranks": group.world_size,
                        "tokens": n,
                        "skipped": False,
                        "peakGiB": round((r["peakBytes"] or 0) / GiB, 2),
                        "estimateGiB": round(est[n].total / GiB, 1),
                        "stateGiB": round(r["stateBytes"] / GiB, 2),
                        "seconds": r["seconds"],
                    }
                )
            except torch.OutOfMemoryError:
                rows.append(
                    {
                        "shape": shape,
                        "mode": mode,
                        "ranks": group.world_size,
                        "tokens": n,
                        "skipped": True,
                        "why": "out of memory",
                        "estimateGiB": round(est[n].total / GiB, 1),
                    }
                )
                torch.cuda.empty_cache()
            if group.leader:
                log(f"  {shape:>14} {mode:>4} ×{group.world_size} {n:>6} tokens: {rows[-1]}")
    finally:
        del trainer
        gc.collect()
        if device.type == "cuda":
            torch.cuda.empty_cache()
    return rows


def fsdp_rows(shape: str, mode: str, lengths: tuple[int, ...], smoke: bool, log: Any) -> list[dict[str, Any]]:
    """The same rows over 2 ranks, in a torchrun job of this module."""
    if not smoke and torch.cuda.device_count() < 2:
        return [
            {
                "shape": shape,
                "mode": mode,
                "ranks": 2,
                "tokens": n,
                "skipped": True,
                "why": f"FSDP needs 2 GPUs; {torch.cuda.device_count()} visible",
            }
            for n in lengths
        ]
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc-per-node=2",
        "-m",
        "agentjet_bench.gpu_memory",
        "--fsdp",
        shape,
        "--mode",
        mode,
        "--lengths",
        ",".join(map(str, lengths)),
    ] + (["--smoke"] if smoke else [])
    # The ranks import this package from its folder (which puts the engine on the path).
    path = os.pathsep.join(p for p in (str(BENCH_PYTHON_DIR), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path, **({"CUDA_VISIBLE_DEVICES": ""} if smoke else {})}
    out = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
    )
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if out.returncode != 0 or not lines:
        tail = (out.stderr or "").strip().splitlines()[-3:]
        return [
            {"shape": shape, "mode": mode, "ranks": 2, "skipped": True, "why": f"FSDP run failed: {' | '.join(tail)}"}
        ]
    rows: list[dict[str, Any]] = json.loads(lines[-1])["rows"]
    for row in rows:
        log(f"  {shape:>14} {mode:>4} ×2 {row.get('tokens', 0):>6} tokens: {row}")
    return rows


def memory_section(ctx: Any) -> dict[str, Any]:
    shapes = ["smoke"] if ctx.smoke else list(ctx.shapes)
    lengths = SMOKE_LENGTHS if ctx.smoke else LENGTHS
    ctx.log(
        "memory: train_step peak memory (CUDA max allocated) and seconds, activation checkpointing + chunked "
        "logprobs on; estimate = memory_plan.estimate"
    )
    rows: list[dict[str, Any]] = []
    for shape in shapes:
        for mode in ("full", "lora"):
            if ctx.time_left() < 30:
                rows.append({"shape": shape, "mode": mode, "skipped": True, "why": "time budget spent"})
                continue
            rows += measure_rows(shape, mode, ctx.device, RankGroup(), lengths, ctx.log)
        if ctx.time_left() > 60:
            rows += fsdp_rows(shape, "full", lengths, ctx.smoke, ctx.log)
    measured = [r for r in rows if not r.get("skipped")]
    return {"section": "memory", "rows": rows, "measured": len(measured)}


def _fsdp_main(shape: str, mode: str, lengths: tuple[int, ...], smoke: bool) -> int:
    group = start_from_env()
    device = torch.device("cuda", group.local_rank) if torch.cuda.is_available() and not smoke else torch.device("cpu")
    rows = measure_rows(shape, mode, device, group, lengths, lambda _line: None)
    if group.leader:
        print(json.dumps({"rows": rows}), flush=True)
    torch.distributed.destroy_process_group()
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="the memory section's FSDP ranks (started by torchrun)")
    p.add_argument("--fsdp", required=True, help="shape name")
    p.add_argument("--mode", default="full", choices=("full", "lora"))
    p.add_argument("--lengths", default=",".join(map(str, LENGTHS)))
    p.add_argument("--smoke", action="store_true")
    a = p.parse_args(argv)
    return _fsdp_main(a.fsdp, a.mode, tuple(int(x) for x in a.lengths.split(",")), a.smoke)


if __name__ == "__main__":
    sys.exit(main())
