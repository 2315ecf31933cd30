"""The built-in model conventions: tokenizer, chat template text, config sizes, loadable HF folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from agentjet_engine import builtin
from agentjet_engine.loading import load_tokenizer
from corpus import CALC_TOOL
from transformers import AutoModelForCausalLM, AutoTokenizer

CALL = {"id": "c1", "type": "function", "function": {"name": "calc", "arguments": {"expression": "2+3"}}}


def test_template_user_assistant_without_system() -> None:
    text = builtin.render_text(
        [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}], add_generation_prompt=True
    )
    assert text == ("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nhello<|im_end|>\n<|im_start|>assistant\n")


def test_template_system_and_tools_block() -> None:
    text = builtin.render_text(
        [{"role": "system", "content": "Be exact."}, {"role": "user", "content": "2+3?"}], tools=[CALC_TOOL]
    )
    tools_line = json.dumps(CALC_TOOL, ensure_ascii=False)
    assert text == (
        "<|im_start|>system\nBe exact.\n\n# Tools\n<tools>\n" + tools_line + "\n</tools>\n"
        'To call a tool, reply with <tool_call>\n{"name": <name>, "arguments": <object>}\n</tool_call>'
        "<|im_end|>\n<|im_start|>user\n2+3?<|im_end|>\n"
    )


def test_template_tools_without_system_emits_a_system_turn() -> None:
    text = builtin.render_text([{"role": "user", "content": "x"}], tools=[CALC_TOOL])
    assert text.startswith("<|im_start|>system\n# Tools\n<tools>\n{")
    assert text.endswith("</tool_call><|im_end|>\n<|im_start|>user\nx<|im_end|>\n")


def test_template_tool_calls_and_tool_results() -> None:
    second = {"id": "c2", "type": "function", "function": {"name": "calc", "arguments": "not json"}}
    text = builtin.render_text(
        [
            {"role": "assistant", "content": "Let me check.", "tool_calls": [CALL, second]},
            {"role": "tool", "tool_call_id": "c1", "content": "5"},
            {"role": "assistant", "content": None, "tool_calls": [CALL]},
        ]
    )
    assert text == (
        '<|im_start|>assistant\nLet me check.\n<tool_call>\n{"name": "calc", "arguments": '
        '{"expression": "2+3"}}\n</tool_call>\n<tool_call>\n{"name": "calc", "arguments": not json}\n'
        "</tool_call><|im_end|>\n<|im_start|>tool\n5<|im_end|>\n"
        '<|im_start|>assistant\n<tool_call>\n{"name": "calc", "arguments": {"expression": "2+3"}}\n'
        "</tool_call><|im_end|>\n"
    )


def test_tokenizer_special_tokens_digits_and_round_trip(model_dir: Path) -> None:
    tok = load_tokenizer(str(model_dir))
    assert tok.pad_token == "<|endoftext|>" and tok.eos_token == "<|im_end|>"
    for t in ("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>"):
        assert len(tok(t, add_special_tokens=False)["input_ids"]) == 1, t
    ids = tok("x = 12345", add_special_tokens=False)["input_ids"]
    assert [tok.decode([i]) for i in ids][-5:] == list("12345")
    call = tok.convert_tokens_to_ids("<tool_call>")
    assert call not in tok.all_special_ids  # added, not special: kept by skip_special_tokens
    assert tok.decode([call, tok.eos_token_id], skip_special_tokens=True) == "<tool_call>"
    for text in [
        "héllo wörld",
        "你好，世界！数学 3.14",
        "emoji 🙂👍🏽👨‍👩‍👧 flags 🇫🇷",
        "tabs\tand\n\nnewlines  ",
        '<tool_call>\n{"a": 1}\n</tool_call><|im_end|>',
        "e\u0301 (decomposed) \u212b \uf900",
    ]:
        assert tok.decode(tok(text, add_special_tokens=False)["input_ids"]) == text


def test_folder_loads_with_auto_classes(model_dir: Path, corpus: list) -> None:
    auto_tok = AutoTokenizer.from_pretrained(str(model_dir))
    tok = load_tokenizer(str(model_dir))
    # transformers 5 rebuilds qwen2 tokenizers with Qwen2's split regex (which we also use) plus NFC;
    # on normalised text the two tokenize identically.
    for t in corpus[:30]:
        text = builtin.render_text(t["messages"], t["tools"])
        assert auto_tok(text, add_special_tokens=False)["input_ids"] == tok(text, add_special_tokens=False)["input_ids"]
    assert auto_tok.apply_chat_template(
        corpus[0]["messages"], tools=corpus[0]["tools"], tokenize=False
    ) == builtin.render_text(corpus[0]["messages"], corpus[0]["tools"])
    model = AutoModelForCausalLM.from_pretrained(str(model_dir))
    assert model.config.model_type == "qwen2" and model.config.tie_word_embeddings
    assert model.config.vocab_size == len(tok)
    assert model.config.eos_token_id == tok.eos_token_id and model.config.pad_token_id == tok.pad_token_id


def test_make_config_sizes() -> None:
    cfg = builtin.make_config(2048, "default")
    assert (cfg.hidden_size, cfg.num_hidden_layers, cfg.num_attention_heads, cfg.num_key_value_heads) == (256, 4, 4, 2)
    assert cfg.max_position_embeddings == 1024 and cfg.tie_word_embeddings
    with torch.device("meta"):
        n = sum(p.numel() for p in builtin.Qwen2ForCausalLM(cfg).parameters())
    assert 3_000_000 < n < 4_000_000
    assert builtin.make_config(300, "test").hidden_size == 64
    with pytest.raises(ValueError, match="size"):
        builtin.make_config(300, "huge")
    with pytest.raises(ValueError, match="vocab_size"):
        builtin.train_tokenizer(["abc"], 100)
