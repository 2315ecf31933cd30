"""GPU benchmark: `python -m agentjet_bench.gpu` (wrapped by `npm run bench -- gpu`; see the package doc).

Runs with only torch ≥ 2.11, transformers 5, peft and tokenizers — no Node, no network, no model
download: the models are random-init configs of Qwen2.5-1.5B and Qwen2.5-7B shapes built on the
GPU in bf16. Sections (each prints what it measures, then a JSON line; the last line sums up):

- `serving`: generated tokens/s of the engine's continuous batcher at 1, 16 and 64 concurrent
  multi-turn episodes (a shared system prompt, then turns that append the reply and a new message),
  with and without prefix KV reuse, and the prompt tokens computed in each case;
- `train`: a LoRA `train_step` on one sequence of 4k, 8k and 16k tokens, seconds and peak memory;
- `memory` (gpu_memory.py) and `sync` (gpu_sync.py: trainer → rollout replica weight sync).

Other modules add sections with one line: `register("name", fn)`, where `fn(ctx) -> dict`
(see `Context`). Without CUDA it says so and exits 2. Budget: under 8 minutes on one H200.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from .random_model import qwen2_shape

SECTIONS: dict[str, Callable[[Context], dict[str, Any]]] = {}

SHAPES: dict[str, dict[str, int]] = {
    "qwen2.5-1.5b": qwen2_shape(1536, 28, 12, 2, 8960, 151936),
    "qwen2.5-7b": qwen2_shape(3584, 28, 28, 4, 18944, 152064),
    "smoke": qwen2_shape(64, 2, 4, 2, 128, 512),  # for exercising the code on CPU (`--smoke`), not for figures
}


def register(name: str, fn: Callable[[Context], dict[str, Any]]) -> None:
    """Adds a section (one line in the module that provides it)."""
    SECTIONS[name] = fn


@dataclass
class Context:
    device: torch.device
    shapes: list[str]
    smoke: bool
    deadline: float
    log: Callable[[str], None] = print
    results: dict[str, Any] = field(default_factory=dict)

    def time_left(self) -> float:
        """Seconds left of the budget; `--smoke` has none (every section runs whole, to exercise it all)."""
        return float("inf") if self.smoke else self.deadline - time.monotonic()

    def engine(self, shape: str, lora: bool = False) -> Any:
        """An Engine holding a random-init model of `shape` (no folder, no tokenizer download)."""
        return random_engine(shape, self.device, lora=lora, context=32768 if not self.smoke else 2048)


class _NoTokenizer:
    """Decoding stand-in: the benchmark never needs text."""

    def decode(self, ids: Any, skip_special_tokens: bool = True) -> str:
        return ""


def random_engine(shape: str, device: torch.device, lora: bool = False, context: int = 32768) -> Any:
    from agentjet_engine.engine import Engine
    from agentjet_engine.loading import LoadedModel, LoadOptions, LoraOptions, _apply_lora

    from .random_model import build, qwen2_config

    size = SHAPES[shape]
    config = qwen2_config(size, context, tied=False, rope_theta=1000000.0, attention="sdpa")
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    model = build(config, device, dtype)  # bf16 weights on GPU (as a LoRA base is loaded)
    options = LoadOptions(
        path=f"<random {shape}>", device=device.type, dtype="auto", lora=LoraOptions(r=16, alpha=32.0) if lora else None
    )
    if lora:
        model = _apply_lora(model, options.lora)  # type: ignore[arg-type]
    model.eval()
    engine = Engine()
    engine.loaded = LoadedModel(
        options=options,
        model=model,
        tokenizer=_NoTokenizer(),
        device=device,
        compute_dtype=dtype,
        eos_ids=[],
        pad_id=0,
        context_length=context,
        vocab_size=size["vocab_size"],
    )
    # train_step runs on the engine's Trainer (engine_training.py), set up as `load` + the plan would.
    from agentjet_engine.memory_plan import PlanRequest, plan_training
    from agentjet_engine.trainer import Trainer

    from .gpu_memory import model_shape_of

    plan = plan_training(
        model_shape_of(shape),
        2**62,
        PlanRequest(mode="lora" if lora else "full", checkpointing=True, micro_batch_tokens=16384, world_size=1),
    )
    engine.trainer = Trainer(engine.loaded, plan, engine.group)
    return engine


def _free(*objs: Any) -> None:
    del objs
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


# ---- serving ------------------------------------------------------------------------------------
def episodes_run(
    engine: Any, episodes: int, turns: int, system: int, turn_tokens: int, reply: int, seed: int
) -> dict[str, Any]:
    """`episodes` concurrent episodes of `turns` calls; each turn appends the reply + a new message."""
    from agentjet_engine.generation import GenerationRequest

    rng = random.Random(seed)
    vocab = engine.loaded.vocab_size
    shared = [rng.randrange(5, vocab) for _ in range(system)]
    prompts = [shared + [rng.randrange(5, vocab) for _ in range(turn_tokens)] for _ in range(episodes)]
    serving = engine.serving
    batcher = serving.batcher
    before = batcher.stats.prefill_tokens
    generated = prompt_tokens = 0
    t0 = time.perf_counter()
    for turn in range(turns):
        requests = [
            GenerationRequest(
                prompt_ids=p,
                max_tokens=reply,
                temperature=1.0,
                top_p=1.0,
                stop_ids=frozenset(),
                seed=seed * 1000 + turn * 100 + i,
            )
            for i, p in enumerate(prompts)
        ]
        results = serving.run_to_completion(requests)
        for i, r in enumerate(results):
            generated += len(r["tokenIds"])
            prompt_tokens += len(prompts[i])
            prompts[i] = prompts[i] + r["tokenIds"] + [rng.randrange(5, vocab) for _ in range(turn_tokens)]
    seconds = time.perf_counter() - t0
    return {
        "episodes": episodes,
        "turns": turns,
        "seconds": round(seconds, 3),
        "generated_tokens_per_s": round(generated / seconds, 1),
        "prompt_tokens": prompt_tokens,
        "prefilled_tokens": batcher.stats.prefill_tokens - before,
    }


def serving_section(ctx: Context) -> dict[str, Any]:
    out: dict[str, Any] = {}
    levels = (1, 4) if ctx.smoke else (1, 16, 64)
    turns, system, turn_tokens, reply = (2, 64, 8, 8) if ctx.smoke else (4, 1024, 64, 64)
    for shape in ctx.shapes:
        engine = ctx.engine(shape)
        engine.configure({"prefixCacheBytes": 0})
        warm = episodes_run(engine, 2, 1, 32, 8, 4, seed=0)
        del warm
        for reuse in (True, False):
            engine.configure(
                {"prefixCacheBytes": 0} if not reuse else {"prefixCacheBytes": 8 << 30 if not ctx.smoke else 64 << 20}
            )
            for n in levels:
                if ctx.time_left() < 60:
                    ctx.log(f"serving {shape}: skipping {n} concurrent (time budget)")
                    continue
                r = episodes_run(engine, n, turns, system, turn_tokens, reply, seed=n)
                key = f"{shape}_c{n}_{'reuse' if reuse else 'noreuse'}"
                out[key] = r
                ctx.log(
                    f"serving {shape} {n:>2} concurrent {'with' if reuse else 'without'} prefix reuse: "
                    f"{r['generated_tokens_per_s']} generated tokens/s, {r['prefilled_tokens']} of "
                    f"{r['prompt_tokens']} prompt tokens computed, {r['seconds']} s"
                )
        _free(engine)
    return out


# ---- training -----------------------------------------------------------------------------------
def train_section(ctx: Context) -> dict[str, Any]:
    out: dict[str, Any] = {}
    lengths = (256, 512) if ctx.smoke else (4096, 8192, 16384)
    for shape in ctx.shapes:
        engine = ctx.engine(shape, lora=True)
        rng = random.Random(0)
        for n in lengths:
            if ctx.time_left() < 45:
                ctx.log(f"train {shape}: skipping {n} tokens (time budget)")
                continue
            ids = [rng.randrange(5, engine.loaded.vocab_size) for _ in range(n)]
            sample = {
                "tokenIds": ids,
                "lossMask": [0] * (n // 2) + [1] * (n - n // 2),
                "advantages": 1.0,
                "rolloutLogprobs": [-1.0] * n,
            }
            if ctx.device.type == "cuda":
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
            t0 = time.perf_counter()
            try:
                stats = engine.train_step({"samples": [sample], "hyper": {"lr": 1e-5, "microBatchTokens": n}})
                peak = torch.cuda.max_memory_allocated() if ctx.device.type == "cuda" else 0
                out[f"{shape}_lora_{n}"] = {
                    "seconds": round(time.perf_counter() - t0, 3),
                    "peak_memory_gib": round(peak / 2**30, 2),
                    "tokens": stats["tokens"],
                }
            except torch.OutOfMemoryError:
                out[f"{shape}_lora_{n}"] = {"error": "out_of_memory"}
                torch.cuda.empty_cache()
            ctx.log(f"train {shape} LoRA train_step on {n} tokens: {out[f'{shape}_lora_{n}']}")
        _free(engine)
    return out


register("serving", serving_section)
register("train", train_section)


def _register_sections() -> None:
    """Sections of other modules (imported late: they import this one)."""
    from .gpu_memory import memory_section
    from .gpu_sync import sync_section

    register("memory", memory_section)
    register("sync", sync_section)


def main(argv: list[str] | None = None) -> int:
    _register_sections()
    parser = argparse.ArgumentParser(description="AgentJet engine GPU benchmark (random-init Qwen2.5 shapes)")
    parser.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated: {', '.join(SECTIONS)}")
    parser.add_argument("--shapes", default="qwen2.5-1.5b,qwen2.5-7b")
    parser.add_argument(
        "--minutes", type=float, default=7.5, help="time budget; sections skip what would not fit (not with --smoke)"
    )
    parser.add_argument(
        "--smoke", action="store_true", help="tiny shapes on any device: exercises the code, no figures"
    )
    args = parser.parse_args(argv)
    if not torch.cuda.is_available() and not args.smoke:
        print(
            "bench gpu: no CUDA device (torch.cuda.is_available() is false); this benchmark needs a GPU. "
            "No figure was measured.",
            file=sys.stderr,
        )
        print(json.dumps({"bench": "gpu", "error": "no_cuda"}))
        return 2
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    names = [s for s in args.sections.split(",") if s]
    unknown = [s for s in names if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section(s) {unknown}; known: {', '.join(SECTIONS)}")
    shapes = ["smoke"] if args.smoke else [s for s in args.shapes.split(",") if s]
    ctx = Context(device=device, shapes=shapes, smoke=args.smoke, deadline=time.monotonic() + args.minutes * 60)
    name = torch.cuda.get_device_name(0) if device.type == "cuda" else "cpu"
    print(
        f"bench gpu: {name} · torch {torch.__version__} · sections {', '.join(names)} · shapes {', '.join(shapes)} "
        f"(random init, bf16) · budget {args.minutes} min"
    )
    summary: dict[str, Any] = {"bench": "gpu", "device": name}
    for section in names:
        result = SECTIONS[section](ctx)
        print(json.dumps({"section": section, **result}))
        summary[section] = result
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
