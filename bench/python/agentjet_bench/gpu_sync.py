"""GPU benchmark section `sync` (issue #21): the weight-sync time from a trainer process to a rollout
replica process for the 1.5B / 7B shapes — every trainable tensor in bf16, bucketed, over the link the
worker uses (`weight_sync.SyncLink`). With two or more GPUs the replica sits on the second one and the
link is NCCL; with one GPU both share it and the link is gloo (NCCL refuses two ranks on one device).
Full fine-tuning sends all the weights; LoRA (r=16) only the adapter. Registered in gpu.py.
"""

from __future__ import annotations

import time
from typing import Any

import torch
import torch.multiprocessing as mp
from agentjet_engine.weight_sync import DEFAULT_BUCKET_BYTES, SyncLink, connect_store, open_store, trainable

from .gpu import SHAPES, Context

REPEATS = 3


def _model(shape: str, device: torch.device, lora: bool) -> Any:
    from agentjet_engine.loading import LoraOptions, _apply_lora

    from .random_model import build, qwen2_config

    config = qwen2_config(SHAPES[shape], 2048, tied=False)  # the context does not change the weights
    model = build(config, device, torch.bfloat16 if device.type == "cuda" else torch.float32)
    if lora:
        model = _apply_lora(model, LoraOptions(r=16, alpha=32.0))
    return model.eval()


def _replica(port: int, shape: str, device: str, lora: bool, backend: str, out: Any) -> None:
    dev = torch.device(device)
    if dev.type == "cuda":
        torch.cuda.set_device(dev)
    model = _model(shape, dev, lora)
    link = SyncLink.join(connect_store("127.0.0.1", port, 300), "bench", 1, dev, 300, backend)
    figures = [link.pull(model, DEFAULT_BUCKET_BYTES)[2] for _ in range(REPEATS)]
    out.put(figures)


def _one(ctx: Context, shape: str, lora: bool) -> dict[str, Any]:
    gpus = torch.cuda.device_count() if ctx.device.type == "cuda" else 0
    replica_device = "cuda:1" if gpus >= 2 else str(ctx.device)
    backend = "nccl" if gpus >= 2 else "gloo"
    model = _model(shape, ctx.device, lora)
    store = open_store("127.0.0.1", 0, 300)
    spawn = mp.get_context("spawn")
    queue = spawn.Queue()
    proc = spawn.Process(target=_replica, args=(store.port, shape, replica_device, lora, backend, queue))
    proc.start()
    try:
        link = SyncLink.join(store, "bench", 0, ctx.device, 300, backend)
        pushes = []
        for _ in range(REPEATS):
            t0 = time.perf_counter()
            pushes.append(link.push(trainable(model), 1, torch.bfloat16, DEFAULT_BUCKET_BYTES))
            pushes[-1]["wallMs"] = (time.perf_counter() - t0) * 1000
        pulls = queue.get(timeout=600)
    finally:
        proc.join(timeout=60)
        if proc.is_alive():
            proc.kill()
    best = min(p["wallMs"] for p in pushes)
    size = pushes[0]["bytes"]
    return {
        "shape": shape,
        "mode": "lora" if lora else "full",
        "backend": backend,
        "replicaDevice": replica_device,
        "bytes": size,
        "syncMs": round(best, 1),
        "gbPerS": round(size / best / 1e6, 2),
        "pullMs": [round(p["ms"], 1) for p in pulls],
    }


def sync_section(ctx: Context) -> dict[str, Any]:
    rows = []
    for shape in ctx.shapes:
        for lora in (False, True):
            if ctx.time_left() < 60:
                ctx.log(f"sync: out of time before {shape} {'lora' if lora else 'full'}")
                break
            row = _one(ctx, shape, lora)
            ctx.log(
                f"sync {shape} {row['mode']}: {row['bytes'] / 2**30:.2f} GiB over {row['backend']} to "
                f"{row['replicaDevice']} in {row['syncMs']} ms ({row['gbPerS']} GB/s)"
            )
            rows.append(row)
    return {"rows": rows}
