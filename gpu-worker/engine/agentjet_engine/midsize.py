"""Randomly initialised Qwen2 model folders built from a config (no download) for serving benchmarks.

`python -m agentjet_engine.midsize --size mid --out DIR` writes an ordinary Hugging Face folder: the
built-in model's tokenizer and chat template with a Qwen2 model of the chosen shape, random weights
(seeded). Its outputs are noise, but its prefill and decode cost is that of a real model of the
size, which is what `npm run bench -- server` needs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import torch
from transformers import GenerationConfig, Qwen2Config, Qwen2ForCausalLM

from .builtin import save_model_folder
from .loading import load_tokenizer

# Shapes (GQA like Qwen2.5: 2 kv heads); params are with the built-in ~700-token vocabulary.
SIZES: dict[str, dict[str, int]] = {
    "small": dict(
        hidden_size=384, num_hidden_layers=6, num_attention_heads=6, num_key_value_heads=2, intermediate_size=1024
    ),  # ~9M
    "mid": dict(
        hidden_size=512, num_hidden_layers=8, num_attention_heads=8, num_key_value_heads=2, intermediate_size=1536
    ),  # ~24M
    "large": dict(
        hidden_size=640, num_hidden_layers=10, num_attention_heads=10, num_key_value_heads=2, intermediate_size=1920
    ),  # ~46M
}


def qwen2_config(size: dict[str, int], vocab_size: int, context: int, **extra: Any) -> Qwen2Config:
    return Qwen2Config(
        vocab_size=vocab_size,
        max_position_embeddings=context,
        tie_word_embeddings=True,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        rms_norm_eps=1e-6,
        **size,
        **extra,
    )


def create(size: str, out: str | Path, tokenizer_dir: str | Path, seed: int = 0, context: int = 4096) -> Path:
    """Writes a random-init model folder of `size` with the tokenizer of `tokenizer_dir`."""
    if size not in SIZES:
        raise ValueError(f"size must be one of {', '.join(SIZES)}, got {size!r}")
    tokenizer = load_tokenizer(str(tokenizer_dir))
    tokenizer.model_max_length = context
    config = qwen2_config(
        SIZES[size],
        len(tokenizer),
        context,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=None,
        eos_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(seed)
    model = Qwen2ForCausalLM(config).float()
    model.generation_config = GenerationConfig(eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    return save_model_folder(model, tokenizer, out)


def main(argv: list[str] | None = None) -> int:
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", default="mid", choices=sorted(SIZES))
    parser.add_argument("--out", required=True)
    parser.add_argument("--tokenizer", required=True, help="a model folder whose tokenizer to use (the built-in one)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--context", type=int, default=4096)
    args = parser.parse_args(argv)
    folder = create(args.size, args.out, args.tokenizer, args.seed, args.context)
    params = sum(p.numel() for p in Qwen2ForCausalLM.from_pretrained(folder).parameters())
    print(json.dumps({"path": str(folder), "size": args.size, "params": params}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
