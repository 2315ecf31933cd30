"""Supervised warm-start of the built-in model from chat transcripts (loss on assistant tokens only).

python -m agentjet_engine.pretrain --transcripts FILE.jsonl [--eval-transcripts F2] --out DIR \
    --size default --vocab-size 2048 --epochs E --lr LR --batch-tokens N --seed S --threads T --max-minutes M
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch
import transformers

from . import builtin
from .batching import pack_by_token_budget, pad_right
from .errors import EngineError
from .losses import gather_logprobs, masked_sum
from .rendering import Renderer, normalise_messages, normalise_tools
from .scoring import forward_logits


@dataclass
class PretrainConfig:
    transcripts: str
    out: str
    eval_transcripts: str | None = None
    size: str = "default"
    vocab_size: int = 2048
    epochs: float = 1.0
    lr: float = 3e-3
    batch_tokens: int = 8192
    seed: int = 0
    threads: int = 2
    max_minutes: float | None = None
    warmup_steps: int | None = None  # default: 5% of the steps, at most 100
    min_lr_ratio: float = 0.1
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    log_every: int = 20


@dataclass
class Example:
    ids: list[int]
    mask: list[int]  # 1 on tokens the assistant generated (after its header, through <|im_end|>)


def log(message: str) -> None:
    print(f"[pretrain] {message}", file=sys.stderr, flush=True)


def read_transcripts(path: str) -> list[dict[str, Any]]:
    """JSONL lines `{"messages": [...], "tools": [...] | null}`, validated; errors name the line."""
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                if not isinstance(row, dict):
                    raise ValueError("not a JSON object")
                out.append(
                    {"messages": normalise_messages(row.get("messages")), "tools": normalise_tools(row.get("tools"))}
                )
            except (ValueError, EngineError) as exc:
                raise ValueError(f"{path}:{n}: {exc}") from exc
    if not out:
        raise ValueError(f"{path}: no transcripts")
    return out


def assistant_loss_mask(
    offsets: list[tuple[int, int]], ids: list[int], spans: list[dict[str, Any]], header_chars: int, end_id: int
) -> list[int]:
    """1 on each assistant turn's generated tokens: from the first token ending past the turn's
    header (`<|im_start|>assistant\\n`, `header_chars` long) through its last `<|im_end|>`."""
    mask = [0] * len(ids)
    for span in spans:
        if span["role"] != "assistant" or span["end"] <= span["start"]:
            continue
        s, e = span["start"], span["end"]
        header_end = offsets[s][0] + header_chars
        first = next((t for t in range(s, e) if offsets[t][1] > header_end), e)
        last = max((t for t in range(s, e) if ids[t] == end_id), default=e - 1)
        for t in range(first, last + 1):
            mask[t] = 1
    return mask


def encode(tokenizer: Any, transcripts: list[dict[str, Any]], context: int) -> tuple[list[Example], int]:
    """Examples (truncated to the context) and the number that had to be truncated."""
    renderer = Renderer(tokenizer)
    end_id = tokenizer.convert_tokens_to_ids(builtin.IM_END)
    examples, truncated = [], 0
    for t in transcripts:
        out = renderer.render(t["messages"], t["tools"], add_generation_prompt=False)
        enc = tokenizer(out["text"], add_special_tokens=False, return_offsets_mapping=True)
        assert list(enc["input_ids"]) == out["tokenIds"]
        mask = assistant_loss_mask(
            enc["offset_mapping"], out["tokenIds"], out["spans"], len(builtin.ASSISTANT_HEADER), end_id
        )
        ids = out["tokenIds"]
        if len(ids) > context:
            ids, mask, truncated = ids[:context], mask[:context], truncated + 1
        if sum(mask):
            examples.append(Example(ids, mask))
    return examples, truncated


def cosine_lr(step: int, total: int, warmup: int, peak: float, min_ratio: float) -> float:
    """Linear warmup to `peak` over `warmup` steps, then cosine decay to `peak * min_ratio` at `total`."""
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = min(1.0, (step - warmup) / max(1, total - warmup))
    return peak * (min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * progress)))


def plan_batches(lengths: list[int], batch_tokens: int, rng: random.Random, group: int = 256) -> list[list[int]]:
    """One epoch: shuffle, sort within groups of similar order (little padding), pack, shuffle batches."""
    order = list(range(len(lengths)))
    rng.shuffle(order)
    batches = []
    for g in range(0, len(order), group):
        members = order[g : g + group]
        for b in pack_by_token_budget([lengths[i] for i in members], batch_tokens):
            batches.append([members[i] for i in b])
    rng.shuffle(batches)
    return batches


def batch_loss(model: Any, examples: list[Example], pad_id: int) -> tuple[torch.Tensor, int]:
    """Mean negative log-likelihood over masked tokens of one padded batch, and their count."""
    ids, attn = pad_right([e.ids for e in examples], pad_id)
    mask, _ = pad_right([e.mask for e in examples], 0)
    logits = forward_logits(model, ids, attn)
    nll = -gather_logprobs(logits[:, :-1], ids[:, 1:])
    target_mask = mask[:, 1:].bool()
    count = int(target_mask.sum())
    return masked_sum(nll, target_mask) / max(1, count), count


@torch.no_grad()
def evaluate(model: Any, examples: list[Example], pad_id: int, batch_tokens: int) -> float:
    model.eval()
    total, count = 0.0, 0
    for b in pack_by_token_budget([len(e.ids) for e in examples], batch_tokens):
        loss, n = batch_loss(model, [examples[i] for i in b], pad_id)
        total, count = total + loss.item() * n, count + n
    model.train()
    return total / max(1, count)


def make_optimizer(model: torch.nn.Module, lr: float, weight_decay: float) -> torch.optim.Optimizer:
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    return torch.optim.AdamW(
        [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
        lr=lr,
        betas=(0.9, 0.95),
        eps=1e-8,
    )


def train(cfg: PretrainConfig) -> dict[str, Any]:
    started = time.perf_counter()
    torch.set_num_threads(cfg.threads)
    random.seed(cfg.seed)
    np.random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)

    train_rows = read_transcripts(cfg.transcripts)
    eval_rows = read_transcripts(cfg.eval_transcripts) if cfg.eval_transcripts else []
    texts = [builtin.render_text(r["messages"], r["tools"]) for r in train_rows]
    tokenizer = builtin.train_tokenizer(texts, cfg.vocab_size)
    model = builtin.new_model(tokenizer, cfg.size, cfg.seed)
    context = model.config.max_position_embeddings
    examples, truncated = encode(tokenizer, train_rows, context)
    eval_examples, _ = encode(tokenizer, eval_rows, context)
    corpus_tokens = sum(len(e.ids) for e in examples)
    assistant_tokens = sum(sum(e.mask) for e in examples)
    n_params = sum(p.numel() for p in model.parameters())
    log(
        f"{len(examples)} transcripts, {corpus_tokens} tokens ({assistant_tokens} assistant), {truncated} truncated; "
        f"vocab {len(tokenizer)}; {n_params / 1e6:.2f}M params"
    )

    rng = random.Random(cfg.seed)
    lengths = [len(e.ids) for e in examples]
    plan: list[list[int]] = []
    for _ in range(math.ceil(cfg.epochs)):
        plan += plan_batches(lengths, cfg.batch_tokens, rng)
    per_epoch = len(plan) / math.ceil(cfg.epochs)
    planned = total = max(1, int(round(per_epoch * cfg.epochs)))
    warmup = cfg.warmup_steps if cfg.warmup_steps is not None else max(1, min(100, total // 20))
    optimizer = make_optimizer(model, cfg.lr, cfg.weight_decay)
    budget = cfg.max_minutes * 60 if cfg.max_minutes else math.inf

    model.train()
    train_started = time.perf_counter()
    seen_tokens, losses, step, rate_from = 0, [], 0, train_started
    while step < total:
        lr = cosine_lr(step, total, warmup, cfg.lr, cfg.min_lr_ratio)
        for group in optimizer.param_groups:
            group["lr"] = lr
        batch = [examples[i] for i in plan[step]]
        loss, _ = batch_loss(model, batch, tokenizer.pad_token_id)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(loss.item())
        seen_tokens += sum(len(e.ids) for e in batch)
        step += 1
        now = time.perf_counter()
        elapsed = now - train_started
        if step == 2:
            rate_from = now
        if step in (12, 50) and budget < math.inf:  # fit the schedule to the time budget, early on
            per_step = (now - rate_from) / (step - 2)
            fits = step + int(0.98 * (budget - (now - started)) / per_step)  # keep a little slack
            fitted = max(step + 1, min(planned, fits))
            if fitted != total:
                log(f"time budget of {cfg.max_minutes} min: planning {fitted} of {planned} steps")
                total = fitted
        if step % cfg.log_every == 0 or step == total:
            recent = losses[-cfg.log_every :]
            log(
                f"step {step}/{total} epoch {step / per_epoch:.2f} loss {sum(recent) / len(recent):.4f} "
                f"lr {lr:.2e} {seen_tokens / elapsed:.0f} tok/s"
            )
        if time.perf_counter() - started > budget:
            log(f"time budget of {cfg.max_minutes} min reached at step {step}")
            break

    train_seconds = time.perf_counter() - train_started
    final_loss = sum(losses[-cfg.log_every :]) / len(losses[-cfg.log_every :])
    eval_loss = evaluate(model, eval_examples, tokenizer.pad_token_id, cfg.batch_tokens) if eval_examples else None
    summary = {
        "steps": step,
        "plannedSteps": planned,
        "scheduledSteps": total,
        "warmupSteps": warmup,
        "epochs": step / per_epoch,
        "transcripts": len(examples),
        "truncated": truncated,
        "corpusTokens": corpus_tokens,
        "assistantTokens": assistant_tokens,
        "tokensProcessed": seen_tokens,
        "finalTrainLoss": final_loss,
        "evalLoss": eval_loss,
        "evalTranscripts": len(eval_examples),
        "params": n_params,
        "vocab": len(tokenizer),
        "trainSeconds": train_seconds,
        "tokensPerSecond": seen_tokens / train_seconds,
        "wallSeconds": time.perf_counter() - started,
    }
    builtin.save_model_folder(model, tokenizer, cfg.out, extra_files={"TRAINING.md": training_report(cfg, summary)})
    log(
        f"saved {cfg.out}: final loss {final_loss:.4f}"
        + (f", eval loss {eval_loss:.4f}" if eval_loss else "")
        + f", {summary['tokensPerSecond']:.0f} tok/s, {summary['wallSeconds']:.0f}s"
    )
    return summary


def training_report(cfg: PretrainConfig, s: dict[str, Any]) -> str:
    settings = "\n".join(f"| {k} | {v} |" for k, v in asdict(cfg).items())
    results = "\n".join(f"| {k} | {round(v, 4) if isinstance(v, float) else v} |" for k, v in s.items())
    return (
        "# Built-in model: training record\n\n"
        "Created by `python -m agentjet_engine.pretrain`: a byte-level BPE tokenizer trained on the rendered\n"
        "transcripts, a freshly initialised Qwen2 model, then supervised learning with the loss on assistant\n"
        "tokens only (after each `<|im_start|>assistant\\n` header, through `<|im_end|>`), AdamW with\n"
        "linear warmup and cosine decay.\n\n"
        f"## Settings\n\n| setting | value |\n|---|---|\n{settings}\n\n"
        f"## Results\n\n| measure | value |\n|---|---|\n{results}\n\n"
        f"## Environment\n\npython {platform.python_version()}, torch {torch.__version__}, transformers "
        f"{transformers.__version__}, {platform.machine()} CPU threads {cfg.threads}\n"
    )


def parse_args(argv: list[str] | None = None) -> PretrainConfig:
    p = argparse.ArgumentParser(prog="python -m agentjet_engine.pretrain", description=__doc__.splitlines()[0])
    p.add_argument("--transcripts", required=True, help="training JSONL: {messages, tools} per line")
    p.add_argument("--eval-transcripts", help="held-out JSONL for a final eval loss")
    p.add_argument("--out", required=True, help="model folder to write (replaced atomically)")
    p.add_argument("--size", default="default", choices=sorted(builtin.SIZES))
    p.add_argument("--vocab-size", type=int, default=2048)
    p.add_argument("--epochs", type=float, default=1.0)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--batch-tokens", type=int, default=8192, help="padded tokens per optimizer step")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--max-minutes", type=float, help="stop (and save) after this much wall time")
    p.add_argument("--warmup-steps", type=int)
    p.add_argument("--log-every", type=int, default=20)
    a = p.parse_args(argv)
    return PretrainConfig(
        transcripts=a.transcripts,
        eval_transcripts=a.eval_transcripts,
        out=a.out,
        size=a.size,
        vocab_size=a.vocab_size,
        epochs=a.epochs,
        lr=a.lr,
        batch_tokens=a.batch_tokens,
        seed=a.seed,
        threads=a.threads,
        max_minutes=a.max_minutes,
        warmup_steps=a.warmup_steps,
        log_every=a.log_every,
    )


def main(argv: list[str] | None = None) -> int:
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    try:
        train(parse_args(argv))
    except (ValueError, OSError) as exc:
        log(f"error: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
