"""GPU benchmark: `python -m agentjet_engine.bench_gpu [--sections a,b] [--shapes …] [--minutes M] [--smoke]`.

Runs with only torch, transformers and peft — no Node, no network, no model download: the models are
random-init configs of the Qwen2.5-1.5B and Qwen2.5-7B shapes built on the GPU. Sections register
with one line, `register("name", fn)` with `fn(ctx: Context) -> dict`; each prints what it measures,
and the last line is one JSON object with every section's result. Without CUDA it says "no CUDA"
and exits 2 (`--smoke` runs tiny shapes on any device to exercise the code; no figures).

(The training helper's minimal registry; the serving helper's fuller bench_gpu.py — serving and
train sections, the same `register`/`Context` interface — replaces this file on merge, keeping
the `memory` registration line below.)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

SECTIONS: dict[str, Callable[["Context"], dict[str, Any]]] = {}

SHAPES: dict[str, dict[str, int]] = {
    "qwen2.5-1.5b": dict(hidden_size=1536, num_hidden_layers=28, num_attention_heads=12, num_key_value_heads=2,
                         intermediate_size=8960, vocab_size=151936),
    "qwen2.5-7b": dict(hidden_size=3584, num_hidden_layers=28, num_attention_heads=28, num_key_value_heads=4,
                       intermediate_size=18944, vocab_size=152064),
    # for exercising the code on CPU (`--smoke`), not for figures
    "smoke": dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                  intermediate_size=128, vocab_size=512),
}


def register(name: str, fn: Callable[["Context"], dict[str, Any]]) -> None:
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
        return self.deadline - time.monotonic()


def _register_sections() -> None:
    from .bench_gpu_memory import memory_section
    register("memory", memory_section)


def main(argv: list[str] | None = None) -> int:
    _register_sections()
    parser = argparse.ArgumentParser(description="AgentJet engine GPU benchmark (random-init Qwen2.5 shapes)")
    parser.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated: {', '.join(SECTIONS)}")
    parser.add_argument("--shapes", default="qwen2.5-1.5b,qwen2.5-7b")
    parser.add_argument("--minutes", type=float, default=7.5, help="time budget; sections skip what would not fit")
    parser.add_argument("--smoke", action="store_true", help="tiny shapes on any device: exercises the code, no figures")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available() and not args.smoke:
        print("no CUDA: the GPU benchmark needs a CUDA device (torch.cuda.is_available() is false)", file=sys.stderr)
        return 2
    names = [s for s in args.sections.split(",") if s]
    unknown = [s for s in names if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section(s) {unknown}; known: {', '.join(SECTIONS)}")
    device = torch.device("cuda") if torch.cuda.is_available() and not args.smoke else torch.device("cpu")
    ctx = Context(device=device, shapes=args.shapes.split(","), smoke=args.smoke,
                  deadline=time.monotonic() + args.minutes * 60)
    print(f"device {torch.cuda.get_device_name(device) if device.type == 'cuda' else 'cpu'} · torch {torch.__version__}")
    for section in names:
        result = SECTIONS[section](ctx)
        ctx.results[section] = result
        print(json.dumps(result))
    print(json.dumps({"bench": "gpu", **{k: v for k, v in ctx.results.items()}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
