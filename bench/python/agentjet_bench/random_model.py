"""Random-weights Qwen2 models for the benchmarks: the one builder, in memory or as a model folder.

`build(config, device, dtype, seed)` makes the model in memory (the GPU benchmark's random-init
Qwen2.5 shapes); `python -m agentjet_bench.random_model --out DIR (--size small|mid|large | --hidden H
--layers L --heads A --kv-heads K --intermediate I) [--vocab V --context C --seed S --tokenizer DIR]`
writes an ordinary Hugging Face folder with the built-in model's tokenizer and chat template, which the
engine loads like any folder (`npm run bench -- server` and `-- memory`). The weights are noise, but
prefill, decode and a train step cost what they cost for a real model of the shape. The model's
vocabulary may exceed the tokenizer's (token ids are what the benchmarks send). Prints the folder and
parameter count.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import torch
from transformers import GenerationConfig, Qwen2Config, Qwen2ForCausalLM

from . import BUILTIN_MODEL_DIR


def qwen2_shape(
    hidden: int, layers: int, heads: int, kv_heads: int, intermediate: int, vocab: int | None = None
) -> dict[str, int]:
    """A Qwen2 shape: the config fields of those dimensions (`vocab_size` only when given)."""
    shape = dict(
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        intermediate_size=intermediate,
    )
    return shape if vocab is None else {**shape, "vocab_size": vocab}


# Shapes for model folders (GQA like Qwen2.5: 2 kv heads); params are with the built-in ~700-token vocabulary.
SIZES: dict[str, dict[str, int]] = {
    "small": qwen2_shape(384, 6, 6, 2, 1024),  # ~9M
    "mid": qwen2_shape(512, 8, 8, 2, 1536),  # ~24M
    "large": qwen2_shape(640, 10, 10, 2, 1920),  # ~46M
}


def qwen2_config(
    shape: dict[str, int],
    context: int,
    *,
    tied: bool = True,
    rope_theta: float = 10000.0,
    attention: str | None = None,
    **extra: Any,
) -> Qwen2Config:
    """A Qwen2 config of `shape` (hidden_size, num_hidden_layers, …, vocab_size) and `context` positions."""
    config = Qwen2Config(
        max_position_embeddings=context,
        tie_word_embeddings=tied,
        rope_parameters={"rope_type": "default", "rope_theta": rope_theta},
        rms_norm_eps=1e-6,
        **shape,
        **extra,
    )
    if attention is not None:
        config._attn_implementation_internal = attention
    return config


def build(
    config: Qwen2Config,
    device: torch.device | None = None,
    dtype: torch.dtype = torch.float32,
    seed: int | None = None,
) -> Qwen2ForCausalLM:
    """A randomly initialised model built on `device` with `dtype` weights (seeded when `seed` is given),
    its output head computing in fp32 where `dtype` is lower (as the engine's `load` does)."""
    from agentjet_engine.loading import fp32_output_head

    if seed is not None:
        torch.manual_seed(seed)
    with torch.device(device or torch.device("cpu")):
        previous = torch.get_default_dtype()
        torch.set_default_dtype(dtype)
        try:
            model = Qwen2ForCausalLM(config)
        finally:
            torch.set_default_dtype(previous)
    if dtype != torch.float32:
        fp32_output_head(model)
    return model


def write_folder(
    out: str | Path,
    shape: dict[str, int],
    *,
    vocab: int | None = None,
    context: int = 4096,
    seed: int = 0,
    tokenizer_dir: str | Path = BUILTIN_MODEL_DIR,
) -> tuple[Path, int]:
    """Writes a random-init model folder of `shape` with the tokenizer of `tokenizer_dir` (its vocabulary
    unless `vocab` is given); returns the folder and the parameter count."""
    from agentjet_engine.builtin import save_model_folder
    from agentjet_engine.loading import load_tokenizer

    tokenizer = load_tokenizer(str(tokenizer_dir))
    tokenizer.model_max_length = context
    pad, eos = tokenizer.pad_token_id, tokenizer.eos_token_id
    config = qwen2_config(
        {**shape, "vocab_size": vocab or len(tokenizer)}, context, pad_token_id=pad, bos_token_id=None, eos_token_id=eos
    )
    model = build(config, seed=seed)
    model.generation_config = GenerationConfig(eos_token_id=eos, pad_token_id=pad)
    folder = save_model_folder(model, tokenizer, out)
    return folder, sum(p.numel() for p in model.parameters())


def _shape(a: argparse.Namespace) -> dict[str, int]:
    if a.size is not None:
        return SIZES[a.size]
    dims = (a.hidden, a.layers, a.heads, a.kv_heads, a.intermediate)
    if any(d is None for d in dims):
        raise SystemExit("give --size, or all of --hidden --layers --heads --kv-heads --intermediate")
    return qwen2_shape(*dims)


def main(argv: list[str] | None = None) -> int:
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--size", choices=sorted(SIZES), help="a preset shape (else give every dimension)")
    for dim in ("--hidden", "--layers", "--heads", "--kv-heads", "--intermediate"):
        p.add_argument(dim, type=int)
    p.add_argument("--vocab", type=int, help="the model's vocabulary (default: the tokenizer's)")
    p.add_argument("--context", type=int, default=4096)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--tokenizer", default=str(BUILTIN_MODEL_DIR), help="a model folder whose tokenizer to use")
    a = p.parse_args(argv)
    folder, params = write_folder(
        a.out, _shape(a), vocab=a.vocab, context=a.context, seed=a.seed, tokenizer_dir=a.tokenizer
    )
    print(json.dumps({"path": str(folder), "params": params, **({"size": a.size} if a.size else {})}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
