"""Reward-model training: a Hugging Face sequence-classification model (one scalar per conversation) trained
with a pairwise Bradley–Terry loss, a pointwise logistic loss, or both, on a task-group split of the labels.

The model is `AutoModelForSequenceClassification(num_labels=1)` on the base folder: by default the policy's
own architecture and initial weights (the backbone loads from the causal LM; the score head starts fresh).
It scores a conversation from the hidden state of its last token (transformers finds it as the last
non-pad token, so batches are right-padded with the pad id).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from transformers import AutoModelForSequenceClassification

from .batching import pad_right
from .loading import load_tokenizer, resolve_device
from .reward_data import Dataset, Split, encode, split, training_pairs

LOSSES = ("pairwise", "pointwise", "both")


@dataclass
class TrainConfig:
    data: str
    base: str
    out: str
    loss: str = "pairwise"
    epochs: float = 3.0
    lr: float = 1e-4
    batch: int = 32  # conversations per step (whole task groups)
    heldout: float = 0.2
    max_length: int = 1024
    seed: int = 0
    threads: int = 2
    device: str = "auto"
    weight_decay: float = 0.0
    warmup_steps: int = 10
    version: int = 1
    max_minutes: float | None = None
    probe_steps: int = 300  # linear probing of the head before fine-tuning (0: none)


def load_reward_model(path: str, device: torch.device) -> Any:
    """The sequence-classification model of `path` (a causal-LM folder or a saved reward model), fp32, eval mode.

    Eager attention: the same graph is exported to ONNX, so PyTorch and ONNX scores agree to float noise.
    """
    model = AutoModelForSequenceClassification.from_pretrained(
        path, num_labels=1, dtype=torch.float32, local_files_only=True, attn_implementation="eager"
    )
    if model.config.pad_token_id is None:
        raise ValueError(f"{path}: config.json has no pad_token_id (needed to find each conversation's last token)")
    model.config.problem_type = "regression"
    model.to(device)
    model.eval()
    return model


def score_ids(model: Any, seqs: list[list[int]], pad_id: int, device: torch.device) -> torch.Tensor:
    """One scalar per token sequence (B,), computed in one right-padded batch."""
    ids, attn = pad_right(seqs, pad_id)
    out = model(input_ids=ids.to(device), attention_mask=attn.to(device))
    return out.logits[:, 0].float()


def pair_loss(chosen: torch.Tensor, rejected: torch.Tensor) -> torch.Tensor:
    """Bradley–Terry: −log σ(r_chosen − r_rejected), averaged."""
    return -F.logsigmoid(chosen - rejected).mean()


def point_loss(scores: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Logistic: P(good) = σ(r)."""
    return F.binary_cross_entropy_with_logits(scores, labels.float())


def lr_at(step: int, total: int, warmup: int, peak: float) -> float:
    """Linear warmup, then cosine decay to a tenth of the peak."""
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = min(1.0, (step - warmup) / max(1, total - warmup))
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


class Scorer:
    """Scores conversations by id with the model, caching token ids; batches by a token budget."""

    def __init__(self, model: Any, tokenizer: Any, data: Dataset, max_length: int, device: torch.device) -> None:
        self.model, self.device = model, device
        self.pad_id = int(model.config.pad_token_id)
        self.ids = {cid: encode(tokenizer, conv, max_length) for cid, conv in data.conversations.items()}

    def __call__(self, cids: list[str]) -> torch.Tensor:
        return score_ids(self.model, [self.ids[c] for c in cids], self.pad_id, self.device)

    @torch.no_grad()
    def many(self, cids: list[str], batch: int = 32) -> dict[str, float]:
        out: dict[str, float] = {}
        order = sorted(set(cids), key=lambda c: len(self.ids[c]))
        for i in range(0, len(order), batch):
            chunk = order[i : i + batch]
            for c, s in zip(chunk, self(chunk).tolist()):
                out[c] = s
        return out


def accuracy(
    scores: dict[str, float], pairs: list[tuple[str, str]], points: list[tuple[str, int]]
) -> dict[str, float | int | None]:
    pair_acc = sum(scores[c] > scores[r] for c, r in pairs) / len(pairs) if pairs else None
    point_acc = sum((scores[c] > 0) == bool(lab) for c, lab in points) / len(points) if points else None
    return {"pairAccuracy": pair_acc, "pointAccuracy": point_acc, "pairs": len(pairs), "points": len(points)}


def step_loss(scorer: Scorer, loss: str, pairs: list[tuple[str, str]], points: list[tuple[str, int]]) -> torch.Tensor:
    """The loss of one step; each conversation of the step is scored once."""
    need = list(dict.fromkeys([c for p in pairs for c in p] + [c for c, _ in points]))
    scores = scorer(need)
    at = {c: i for i, c in enumerate(need)}
    total = torch.zeros((), device=scores.device)
    if loss in ("pairwise", "both") and pairs:
        total = total + pair_loss(scores[[at[c] for c, _ in pairs]], scores[[at[r] for _, r in pairs]])
    if loss in ("pointwise", "both") and points:
        labels = torch.tensor([lab for _, lab in points], device=scores.device)
        total = total + point_loss(scores[[at[c] for c, _ in points]], labels)
    return total


def plan(
    cfg: TrainConfig, data: Dataset, sp: Split, rng: random.Random
) -> list[tuple[list[tuple[str, str]], list[tuple[str, int]]]]:
    """The steps of the run, by task group: a step takes whole groups (about `batch` conversations) and
    trains on every labelled pair and point among them, so each conversation is scored once per step and
    once per epoch — all K(K−1)/2 comparisons of a group for the price of K forward passes (as InstructGPT
    batches a prompt's comparisons). Epochs may be fractional."""
    use_pairs = cfg.loss in ("pairwise", "both")
    use_points = cfg.loss in ("pointwise", "both")
    group_of = {cid: c.group for cid, c in data.conversations.items()}
    groups: dict[str, tuple[list[tuple[str, str]], list[tuple[str, int]], set[str]]] = {}
    for p in sp.train_pairs if use_pairs else []:
        g = groups.setdefault(group_of[p[0]], ([], [], set()))
        g[0].append(p)
        g[2].update(p)
    for q in sp.train_points if use_points else []:
        g = groups.setdefault(group_of[q[0]], ([], [], set()))
        g[1].append(q)
        g[2].add(q[0])
    if not groups:
        raise ValueError(
            f"no training labels for the {cfg.loss} loss after holding out {cfg.heldout:.0%} of the task groups"
        )
    names = sorted(groups)

    def epoch() -> list[tuple[list[tuple[str, str]], list[tuple[str, int]]]]:
        order = rng.sample(names, len(names))
        steps, pairs, points, size = [], [], [], 0
        for name in order:
            gp, gq, convs = groups[name]
            pairs, points, size = pairs + gp, points + gq, size + len(convs)
            if size >= cfg.batch:
                steps.append((pairs, points))
                pairs, points, size = [], [], 0
        if pairs or points:
            steps.append((pairs, points))
        return steps

    first = epoch()
    total = max(1, int(round(cfg.epochs * len(first))))
    out = list(first)
    while len(out) < total:
        out += epoch()
    return out[:total]


def train(
    cfg: TrainConfig, data: Dataset, emit: Callable[[dict[str, Any]], None]
) -> tuple[Any, Any, Scorer, dict[str, Any]]:
    """Trains; returns (model, tokenizer, scorer, report). `emit` gets progress events."""
    if cfg.loss not in LOSSES:
        raise ValueError(f"loss must be one of {', '.join(LOSSES)}")
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    rng = random.Random(cfg.seed)
    device = resolve_device(cfg.device)
    tokenizer = load_tokenizer(cfg.base)
    model = load_reward_model(cfg.base, device)
    sp = split(data, training_pairs(data), cfg.heldout, cfg.seed)
    scorer = Scorer(model, tokenizer, data, cfg.max_length, device)
    steps = plan(cfg, data, sp, rng)
    emit(
        {
            "event": "start",
            "steps": len(steps),
            "trainPairs": len(sp.train_pairs),
            "heldoutPairs": len(sp.heldout_pairs),
            "trainPoints": len(sp.train_points),
            "heldoutPoints": len(sp.heldout_points),
            "conversations": len(data.conversations),
            "device": device.type,
        }
    )
    if cfg.probe_steps > 0:
        from .reward_probe import last_token_features, probe_head

        t_probe = time.monotonic()
        need = {c for p in sp.train_pairs for c in p} | {c for c, _ in sp.train_points}
        feats = last_token_features(model, {c: scorer.ids[c] for c in need}, scorer.pad_id, device)
        probe_loss = probe_head(model, feats, cfg.loss, sp.train_pairs, sp.train_points, cfg.probe_steps)
        emit(
            {
                "event": "probe",
                "loss": round(probe_loss, 5),
                "seconds": round(time.monotonic() - t_probe, 2),
                "conversations": len(feats),
            }
        )
    decay = [p for p in model.parameters() if p.dim() >= 2]
    rest = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": cfg.weight_decay}, {"params": rest, "weight_decay": 0.0}],
        lr=cfg.lr,
        betas=(0.9, 0.99),
    )
    t0 = time.monotonic()
    every = max(1, len(steps) // 10)
    model.train()
    done = 0
    for i, (bp, bq) in enumerate(steps):
        for g in opt.param_groups:
            g["lr"] = lr_at(i, len(steps), min(cfg.warmup_steps, len(steps) // 5 + 1), cfg.lr)
        loss = step_loss(scorer, cfg.loss, bp, bq)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        done = i + 1
        if done % every == 0 or done == len(steps):
            emit(
                {
                    "event": "step",
                    "step": done,
                    "steps": len(steps),
                    "loss": round(float(loss.item()), 5),
                    "seconds": round(time.monotonic() - t0, 2),
                }
            )
        if cfg.max_minutes is not None and time.monotonic() - t0 > cfg.max_minutes * 60:
            emit({"event": "stopped", "reason": "max_minutes", "step": done})
            break
    model.eval()
    seconds = time.monotonic() - t0
    held_ids = [c for p in sp.heldout_pairs for c in p] + [c for c, _ in sp.heldout_points]
    train_ids = [c for p in sp.train_pairs for c in p] + [c for c, _ in sp.train_points]
    scores = scorer.many(held_ids + train_ids)
    held = accuracy(scores, sp.heldout_pairs, sp.heldout_points)
    trained = accuracy(scores, sp.train_pairs, sp.train_points)
    headline = (
        held["pairAccuracy"] if cfg.loss != "pointwise" and held["pairAccuracy"] is not None else held["pointAccuracy"]
    )
    train_scores = [scores[c] for c in dict.fromkeys(train_ids)]
    mean = sum(train_scores) / max(1, len(train_scores))
    std = math.sqrt(sum((s - mean) ** 2 for s in train_scores) / max(1, len(train_scores)))
    report = {
        "steps": done,
        "seconds": round(seconds, 2),
        "heldoutAccuracy": headline,
        "heldout": held,
        "train": trained,
        "scoreStats": {"mean": mean, "std": std},
        "heldoutIds": list(dict.fromkeys(held_ids)),
    }
    return model, tokenizer, scorer, report
