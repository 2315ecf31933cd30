"""Supervised warm-start: assistant-only loss mask, LR schedule, and a tiny end-to-end run."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
from agentjet_engine import builtin
from agentjet_engine.engine import Engine
from agentjet_engine.loading import load_tokenizer
from agentjet_engine.pretrain import cosine_lr, encode, main, plan_batches, read_transcripts
from corpus import transcripts


def test_loss_mask_covers_exactly_the_assistant_generated_text(model_dir: Path, corpus: list) -> None:
    tok = load_tokenizer(str(model_dir))
    convo = next(t for t in corpus if t["tools"] and t["messages"][0]["role"] == "user")
    (example,), _ = encode(tok, [convo], context=10_000)
    pieces, current = [], []
    for i, m in zip(example.ids, example.mask):
        if m:
            current.append(i)
        elif current:
            pieces.append(tok.decode(current, skip_special_tokens=False))
            current = []
    if current:
        pieces.append(tok.decode(current, skip_special_tokens=False))
    call = json.loads(convo["messages"][1]["tool_calls"][0]["function"]["arguments"])
    assert pieces == [
        "<tool_call>\n" + json.dumps({"name": "calc", "arguments": call}) + "\n</tool_call><|im_end|>",
        convo["messages"][3]["content"] + "<|im_end|>",
    ]


def test_loss_mask_when_content_starts_with_whitespace(model_dir: Path) -> None:
    tok = load_tokenizer(str(model_dir))
    convo = {
        "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": "\n\n  indented"}],
        "tools": None,
    }
    (example,), _ = encode(tok, [convo], context=10_000)
    masked = tok.decode([i for i, m in zip(example.ids, example.mask) if m], skip_special_tokens=False)
    assert masked.endswith("indented<|im_end|>") and "assistant" not in masked


def test_cosine_lr_schedule() -> None:
    assert cosine_lr(0, 100, 10, 1.0, 0.1) == pytest.approx(0.1)
    assert cosine_lr(9, 100, 10, 1.0, 0.1) == pytest.approx(1.0)
    assert cosine_lr(10, 100, 10, 1.0, 0.1) == pytest.approx(1.0)
    assert cosine_lr(55, 100, 10, 1.0, 0.1) == pytest.approx(0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * 0.5)))
    assert cosine_lr(100, 100, 10, 1.0, 0.1) == pytest.approx(0.1)


def test_plan_batches_respects_the_budget() -> None:
    lengths = [random.Random(i).randint(5, 60) for i in range(100)]
    plan = plan_batches(lengths, 200, random.Random(0), group=32)
    assert sorted(i for b in plan for i in b) == list(range(100))
    assert all(max(lengths[i] for i in b) * len(b) <= 200 for b in plan)


def test_read_transcripts_names_the_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(transcripts(1)[0]) + "\n" + json.dumps({"messages": [{"role": "x"}]}) + "\n")
    with pytest.raises(ValueError, match=r"bad.jsonl:2: messages\[0\].role"):
        read_transcripts(str(path))


def test_pretrain_end_to_end(tmp_path: Path) -> None:
    train, held_out = tmp_path / "train.jsonl", tmp_path / "eval.jsonl"
    train.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in transcripts(120, seed=7)))
    held_out.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in transcripts(12, seed=8)))
    out = tmp_path / "model"
    code = main(
        [
            "--transcripts",
            str(train),
            "--eval-transcripts",
            str(held_out),
            "--out",
            str(out),
            "--size",
            "test",
            "--vocab-size",
            "400",
            "--epochs",
            "3",
            "--lr",
            "5e-3",
            "--batch-tokens",
            "2048",
            "--seed",
            "1",
            "--threads",
            "2",
            "--log-every",
            "5",
        ]
    )
    assert code == 0
    report = (out / "TRAINING.md").read_text()
    for needle in ("| seed | 1 |", "finalTrainLoss", "evalLoss", "tokensPerSecond", "corpusTokens", "wallSeconds"):
        assert needle in report
    engine = Engine(threads=2)
    info = engine.load({"path": str(out)})
    assert info["contextLength"] == 256 and info["eosTokenIds"] == [engine.loaded.tokenizer.eos_token_id]
    assert engine.loaded.tokenizer.chat_template == builtin.CHAT_TEMPLATE
    # the warm start learned something: the assistant turns are far likelier than uniform
    (example,), _ = encode(engine.loaded.tokenizer, transcripts(1, seed=9), 256)
    lp = engine.logprobs({"sequences": [{"tokenIds": example.ids}]})["logprobs"][0]
    masked = [v for v, m in zip(lp, example.mask) if m]
    assert sum(masked) / len(masked) > -math.log(info["vocabSize"]) + 1.0
