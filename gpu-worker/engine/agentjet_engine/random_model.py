"""A randomly initialised Qwen2-architecture model folder (`from_config`) for benchmarks.

`python -m agentjet_engine.random_model --out DIR [--hidden H --layers L --heads A --kv-heads K
--intermediate I --vocab V --context C --seed S]` writes config + weights with the built-in model's
tokenizer and chat template (so the engine loads it like any folder); the vocabulary of the model may
exceed the tokenizer's (token ids are what the benchmarks send). Prints the folder and parameter count.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import torch
from transformers import Qwen2Config, Qwen2ForCausalLM

BUILTIN = Path(__file__).resolve().parents[3] / "resources" / "models" / "agentjet-tiny"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "generation_config.json")


def create(
    out: Path,
    hidden: int,
    layers: int,
    heads: int,
    kv_heads: int,
    intermediate: int,
    vocab: int,
    context: int,
    seed: int,
) -> int:
    torch.manual_seed(seed)
    config = Qwen2Config(
        vocab_size=vocab,
        hidden_size=hidden,
        intermediate_size=intermediate,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        max_position_embeddings=context,
        tie_word_embeddings=True,
        pad_token_id=0,
        eos_token_id=2,
    )
    model = Qwen2ForCausalLM(config)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    for name in TOKENIZER_FILES:
        if (BUILTIN / name).is_file():
            shutil.copy(BUILTIN / name, out / name)
    return sum(p.numel() for p in model.parameters())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", required=True)
    p.add_argument("--hidden", type=int, default=384)
    p.add_argument("--layers", type=int, default=8)
    p.add_argument("--heads", type=int, default=6)
    p.add_argument("--kv-heads", type=int, default=2)
    p.add_argument("--intermediate", type=int, default=1024)
    p.add_argument("--vocab", type=int, default=16384)
    p.add_argument("--context", type=int, default=32768)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    params = create(Path(a.out), a.hidden, a.layers, a.heads, a.kv_heads, a.intermediate, a.vocab, a.context, a.seed)
    print(json.dumps({"path": str(Path(a.out).resolve()), "params": params}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
