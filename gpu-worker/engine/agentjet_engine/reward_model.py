"""Reward models, as a process of their own (never the policy engine's):

    python -m agentjet_engine.reward_model train --data DATASET.jsonl --base MODEL_DIR --out RM_DIR
        [--loss pairwise|pointwise|both] [--epochs E] [--lr LR] [--batch N] [--heldout F] [--max-length L]
        [--seed S] [--threads T] [--device auto|cpu|cuda] [--version V] [--max-minutes M]
        [--exporter torchscript|dynamo] [--probe-steps N]
    python -m agentjet_engine.reward_model score --model RM_DIR --data CONVERSATIONS.jsonl

`train` reads the labels dataset (see reward_data.py), fits the fresh score head on frozen features
(reward_probe.py), fine-tunes the whole model (reward_train.py) and writes the versioned
reward-model folder (reward_export.py). Progress is one JSON object per line on stdout — `start`, `probe`, `step`,
`exported`, then `done` with the manifest, or `error` with `{type, code, message}` (exit status 1); logs go to
stderr. `score` prints, per conversation line (`{"id"?, "messages", "tools"?}`), its token ids and its PyTorch
and ONNX scores — what the Node scorer's tests compare against.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import IO, Any


def _claim_stdout() -> IO[str]:
    """Events get a private copy of stdout; fd 1 then points at stderr, so library prints cannot corrupt them."""
    events = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return events


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m agentjet_engine.reward_model")
    sub = p.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="train a reward model on a labels dataset and export it")
    t.add_argument("--data", required=True)
    t.add_argument("--base", required=True, help="a Hugging Face causal-LM (or reward-model) folder")
    t.add_argument("--out", required=True, help="the reward-model folder to create")
    t.add_argument("--loss", default="pairwise", choices=("pairwise", "pointwise", "both"))
    t.add_argument("--epochs", type=float, default=3.0)
    t.add_argument("--lr", type=float, default=1e-4)
    t.add_argument("--batch", type=int, default=32, help="conversations per step (whole task groups)")
    t.add_argument("--heldout", type=float, default=0.2)
    t.add_argument("--max-length", type=int, default=1024)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--threads", type=int, default=2)
    t.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    t.add_argument("--version", type=int, default=1)
    t.add_argument("--max-minutes", type=float, default=None)
    t.add_argument(
        "--probe-steps", type=int, default=300, help="fit the fresh score head on frozen features first (0: no)"
    )
    t.add_argument(
        "--exporter",
        default="torchscript",
        choices=("torchscript", "dynamo"),
        help="torch.onnx exporter (both pass the same parity check; torchscript is much faster)",
    )
    s = sub.add_parser("score", help="token ids and PyTorch + ONNX scores of conversations")
    s.add_argument("--model", required=True)
    s.add_argument("--data", required=True)
    s.add_argument("--threads", type=int, default=2)
    return p


def _check_numbers(a: argparse.Namespace) -> None:
    checks = [
        (a.epochs > 0, "--epochs must be > 0"),
        (a.lr > 0, "--lr must be > 0"),
        (a.batch >= 1, "--batch must be ≥ 1"),
        (0 <= a.heldout < 1, "--heldout must be in [0, 1)"),
        (a.max_length >= 8, "--max-length must be ≥ 8"),
        (a.threads >= 1, "--threads must be ≥ 1"),
        (a.version >= 1, "--version must be ≥ 1"),
        (a.probe_steps >= 0, "--probe-steps must be ≥ 0"),
    ]
    for ok, message in checks:
        if not ok:
            raise ValueError(message)


def train_command(a: argparse.Namespace, emit: Any) -> None:
    from .reward_data import read_dataset

    # Bad input is refused before torch is imported (seconds on a busy machine).
    _check_numbers(a)
    base = Path(a.base)
    if not (base / "config.json").is_file():
        raise ValueError(f"--base {a.base}: not a Hugging Face model folder (no config.json)")
    if Path(a.out).exists():
        raise FileExistsError(f"--out {a.out} exists already (reward-model folders are never overwritten)")
    data = read_dataset(a.data)

    from .reward_export import folder_hash, write_folder
    from .reward_train import TrainConfig, train

    cfg = TrainConfig(
        data=a.data,
        base=str(base.resolve()),
        out=a.out,
        loss=a.loss,
        epochs=a.epochs,
        lr=a.lr,
        batch=a.batch,
        heldout=a.heldout,
        max_length=a.max_length,
        seed=a.seed,
        threads=a.threads,
        device=a.device,
        version=a.version,
        max_minutes=a.max_minutes,
        probe_steps=a.probe_steps,
    )
    t0 = time.monotonic()
    model, tokenizer, scorer, report = train(cfg, data, emit)
    parity_ids = report.pop("heldoutIds")[:48] or list(scorer.ids)[:48]
    meta = {
        "version": cfg.version,
        "createdAt": int(time.time() * 1000),
        "base": cfg.base,
        "loss": cfg.loss,
        "maxLength": cfg.max_length,
        "training": {
            "conversations": len(data.conversations),
            "pointLabels": len(data.points),
            "pairLabels": len(data.pairs),
            "epochs": cfg.epochs,
            "lr": cfg.lr,
            "batch": cfg.batch,
            "heldout": cfg.heldout,
            "seed": cfg.seed,
            "steps": report["steps"],
            "seconds": report["seconds"],
        },
        "metrics": {
            "heldoutAccuracy": report["heldoutAccuracy"],
            "heldout": report["heldout"],
            "train": report["train"],
        },
        "scoreStats": report["scoreStats"],
    }
    manifest = write_folder(Path(cfg.out), model, tokenizer, [scorer.ids[c] for c in parity_ids], meta, a.exporter)
    emit(
        {
            "event": "exported",
            "onnxMaxAbsDiff": manifest["onnx"]["maxAbsDiff"],
            "exportSeconds": manifest["onnx"]["exportSeconds"],
        }
    )
    out = Path(cfg.out).resolve()
    emit(
        {
            "event": "done",
            "folder": str(out),
            "sha256": folder_hash(out),
            "seconds": round(time.monotonic() - t0, 2),
            "manifest": manifest,
        }
    )


def score_command(a: argparse.Namespace, emit: Any) -> None:
    import numpy as np
    import onnxruntime as ort
    import torch

    from .loading import load_tokenizer
    from .reward_data import encode, parse_conversation
    from .reward_export import ONNX_FILE, onnx_scores, verify_folder
    from .reward_train import load_reward_model

    torch.set_num_threads(a.threads)
    folder = Path(a.model)
    manifest = verify_folder(folder)
    tokenizer = load_tokenizer(str(folder))
    model = load_reward_model(str(folder), torch.device("cpu"))
    session = ort.InferenceSession(str(folder / ONNX_FILE), providers=["CPUExecutionProvider"])
    pad_id = int(manifest["padTokenId"])
    with open(a.data, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            row = json.loads(line)
            conv = parse_conversation({"id": str(row.get("id", n)), "group": "", **row}, f"{a.data}:{n}")
            ids = encode(tokenizer, conv, int(manifest["maxLength"]))
            with torch.no_grad():
                ref = float(
                    model(
                        input_ids=torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long)
                    ).logits[0, 0]
                )
            got = float(np.asarray(onnx_scores(session, [ids], pad_id))[0])
            emit({"id": conv.id, "tokenIds": ids, "torch": ref, "onnx": got})


def main(argv: list[str] | None = None) -> int:
    events = _claim_stdout()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

    def emit(event: dict[str, Any]) -> None:
        events.write(json.dumps(event) + "\n")

    args = _parser().parse_args(argv)
    try:
        (train_command if args.command == "train" else score_command)(args, emit)
    except (ValueError, FileExistsError, FileNotFoundError) as exc:
        emit({"event": "error", "error": {"type": "invalid_params", "code": "bad_input", "message": str(exc)}})
        return 1
    except Exception as exc:  # noqa: BLE001 - reported as a value, then the process exits
        emit(
            {
                "event": "error",
                "error": {"type": "internal", "code": type(exc).__name__, "message": f"{type(exc).__name__}: {exc}"},
            }
        )
        return 1
    finally:
        events.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
