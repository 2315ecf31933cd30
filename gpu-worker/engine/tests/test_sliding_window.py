"""Sliding-window attention: a tiny Gemma 3 text model (interleaved local and global layers, the window
8 tokens so every sequence reaches past it) is served by the continuous path, and what it samples carries
the model's own logprobs — decoding rows batched with prefill chunks, and a call that reuses the prefix
cache of an earlier one (docs/model-families.md, the serving table). Tree-packed samples, which take the
dense mask on such a model, score as their branches do alone (the window kept on the sliding layers).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import torch
from agentjet_engine.engine import Engine
from transformers import Gemma3ForCausalLM, Gemma3TextConfig, PreTrainedTokenizerFast

WINDOW = 8


@pytest.fixture(scope="module")
def gemma_dir(model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built-in test model's tokenizer with a random Gemma 3 text model of its vocabulary."""
    out = tmp_path_factory.mktemp("gemma3")
    for f in model_dir.iterdir():
        if f.name not in ("config.json", "model.safetensors"):
            shutil.copyfile(f, out / f.name)
    vocab = len(PreTrainedTokenizerFast.from_pretrained(str(out)))
    torch.manual_seed(0)
    config = Gemma3TextConfig(
        vocab_size=vocab,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        intermediate_size=128,
        max_position_embeddings=512,
        sliding_window=WINDOW,
        layer_types=["sliding_attention", "full_attention"],
        query_pre_attn_scalar=16,
        pad_token_id=0,
        bos_token_id=None,
        eos_token_id=None,
    )
    Gemma3ForCausalLM(config).save_pretrained(out)
    return out


def own_logprobs(model: Any, prompt: list[int], tokens: list[int]) -> list[float]:
    with torch.no_grad():
        lp = torch.log_softmax(model(input_ids=torch.tensor([prompt + tokens])).logits[0].float(), -1)
    return [float(lp[len(prompt) - 1 + i, t]) for i, t in enumerate(tokens)]


@pytest.fixture(scope="module")
def engine(gemma_dir: Path) -> Engine:
    engine = Engine(threads=2)
    engine.load({"path": str(gemma_dir), "seed": 0, "threads": 2})
    return engine


def test_gemma3_takes_the_continuous_batcher_and_keeps_its_own_logprobs(gemma_dir: Path, engine: Engine) -> None:
    vocab = int(engine.info()["vocabSize"])
    prompts = [[3 + (7 * i) % (vocab - 3) for i in range(n)] for n in (37, 20, 5)]
    requests = [
        {"promptIds": p, "maxTokens": 24, "temperature": 1.0, "stopIds": [], "seed": i} for i, p in enumerate(prompts)
    ]
    results = engine.generate({"requests": requests})["results"]
    # A call extending the first one's prompt and output: its prefix comes from the cache.
    longer = prompts[0] + results[0]["tokenIds"] + prompts[1][:6]
    results += engine.generate(
        {"requests": [{"promptIds": longer, "maxTokens": 16, "temperature": 1.0, "stopIds": [], "seed": 9}]}
    )["results"]
    serving = engine.info()["serving"]
    assert serving["mode"] == "continuous", serving.get("fallback")
    model = Gemma3ForCausalLM.from_pretrained(str(gemma_dir)).eval()
    for prompt, r in zip([*prompts, longer], results):
        assert len(prompt) + len(r["tokenIds"]) > WINDOW
        want = own_logprobs(model, prompt, r["tokenIds"])
        assert max(abs(a - b) for a, b in zip(want, r["logprobs"])) < 1e-4
    assert results[-1]["cachedTokens"] > WINDOW


def test_a_tree_sample_scores_as_its_branches_with_the_window_kept(engine: Engine) -> None:
    assert engine.info()["treeAttention"] == "dense"  # the segment plan has no sliding-window entry
    prefix, a, b = list(range(100, 120)), list(range(200, 215)), list(range(300, 315))
    parents = [*range(-1, 19), 19, *range(20, 34), 19, *range(35, 49)]
    tree, linear = engine.logprobs(
        {"sequences": [{"tokenIds": prefix + a + b, "parents": parents}, {"tokenIds": prefix + a}]}
    )["logprobs"]
    alone_b = engine.logprobs({"sequences": [{"tokenIds": prefix + b}]})["logprobs"][0]
    want = linear + alone_b[len(prefix) :]
    assert max(abs(x - y) for x, y in zip(tree, want)) < 1e-4
