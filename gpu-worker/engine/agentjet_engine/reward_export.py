"""Reward-model folders: the trained model as Hugging Face weights and as ONNX (`torch.onnx.export`), with its
tokenizer, chat template and a manifest (`reward_model.json`) listing every file's SHA-256.

The ONNX graph takes `input_ids` and `attention_mask` (int64, batch × length, both dynamic; right-padded
with the pad id) and returns `scores` (float32, one per row). Two exporters of `torch.onnx.export`: the
TorchScript one (the default: seconds, against a minute or more for the built-in model with the dynamo one
on a busy CPU, which matters when a researcher waits for each new reward model) and the torch.export-based
dynamo one (`exporter="dynamo"`); both must pass the same parity check. Before the folder is written, the ONNX scores
of a set of conversations — one at a time and in padded batches — are compared with PyTorch's; a difference
above `PARITY_TOLERANCE` fails the export.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch

from .batching import pad_right

FORMAT = "agentjet-reward-model/1"
MANIFEST = "reward_model.json"
ONNX_FILE = "model.onnx"
PARITY_TOLERANCE = 1e-4
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja")


class ScoreHead(torch.nn.Module):
    """The sequence-classification model as (input_ids, attention_mask) → scores (B,)."""

    def __init__(self, model: Any) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits[:, 0]


EXPORTERS = ("torchscript", "dynamo")
OPSET = 18


def export_onnx(model: Any, path: Path, example: list[list[int]], pad_id: int, exporter: str = "torchscript") -> None:
    """Exports with dynamic batch and length, weights inside the one file."""
    if exporter not in EXPORTERS:
        raise ValueError(f"exporter must be one of {', '.join(EXPORTERS)}")
    ids, attn = pad_right(example, pad_id)
    head = ScoreHead(model.cpu()).eval()
    names = {"input_names": ["input_ids", "attention_mask"], "output_names": ["scores"]}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation and tracer notes
        if exporter == "dynamo":
            batch, length = torch.export.Dim("batch"), torch.export.Dim("length")
            torch.onnx.export(
                head,
                (ids, attn),
                str(path),
                dynamo=True,
                external_data=False,
                verbose=False,
                opset_version=OPSET,
                dynamic_shapes={"input_ids": {0: batch, 1: length}, "attention_mask": {0: batch, 1: length}},
                **names,
            )
        else:
            torch.onnx.export(
                head,
                (ids, attn),
                str(path),
                dynamo=False,
                opset_version=OPSET,
                **names,
                dynamic_axes={
                    "input_ids": {0: "batch", 1: "length"},
                    "attention_mask": {0: "batch", 1: "length"},
                    "scores": {0: "batch"},
                },
            )


def onnx_scores(session: Any, seqs: list[list[int]], pad_id: int) -> np.ndarray:
    ids, attn = pad_right(seqs, pad_id)
    return session.run(["scores"], {"input_ids": ids.numpy(), "attention_mask": attn.numpy()})[0]


def parity(model: Any, onnx_path: Path, seqs: list[list[int]], pad_id: int, batch: int = 8) -> float:
    """Max |ONNX − PyTorch| over `seqs`, each scored alone and within right-padded batches."""
    import onnxruntime as ort

    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    model = model.cpu().eval()
    worst = 0.0
    with torch.no_grad():
        torch_scores = [
            float(
                model(input_ids=torch.tensor([s]), attention_mask=torch.ones(1, len(s), dtype=torch.long)).logits[0, 0]
            )
            for s in seqs
        ]
    for i, s in enumerate(seqs[: min(len(seqs), 16)]):
        worst = max(worst, abs(float(onnx_scores(session, [s], pad_id)[0]) - torch_scores[i]))
    for i in range(0, len(seqs), batch):
        got = onnx_scores(session, seqs[i : i + batch], pad_id)
        worst = max(worst, float(np.max(np.abs(got - np.array(torch_scores[i : i + batch])))))
    return worst


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def folder_hash(folder: Path) -> str:
    """A reward-model folder's identity: the SHA-256 of its manifest (which lists every file's hash)."""
    return sha256_file(folder / MANIFEST)


def verify_folder(folder: Path) -> dict[str, Any]:
    """The manifest, after checking that every listed file has its listed hash."""
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    if manifest.get("format") != FORMAT:
        raise ValueError(f"{folder}: not a reward-model folder (format {manifest.get('format')!r})")
    for name, digest in manifest["files"].items():
        # Plain file names of the folder itself (what write_folder lists): nothing outside it is read.
        if not isinstance(name, str) or name in ("", ".", "..") or any(c in name for c in "/\\\0"):
            raise ValueError(f"{folder}/{MANIFEST}: {name!r} is not a file name inside the folder")
        if (folder / name).is_symlink() and not (folder / name).resolve().is_relative_to(folder.resolve()):
            raise ValueError(f"{folder}/{MANIFEST}: {name!r} leads outside the folder (a symbolic link)")
        if sha256_file(folder / name) != digest:
            raise ValueError(f"{folder}/{name}: its SHA-256 differs from the manifest's")
    return manifest


def write_folder(
    out: Path,
    model: Any,
    tokenizer: Any,
    parity_seqs: list[list[int]],
    meta: dict[str, Any],
    exporter: str = "torchscript",
) -> dict[str, Any]:
    """Writes the reward-model folder `out` (which must not exist) atomically; returns its manifest."""
    out = out.resolve()
    if out.exists():
        raise FileExistsError(f"{out} exists already (reward-model folders are never overwritten)")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        pad_id = int(model.config.pad_token_id)
        model = model.cpu().eval()
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        if not (tmp / "chat_template.jinja").is_file():
            (tmp / "chat_template.jinja").write_text(tokenizer.chat_template, encoding="utf-8")
        t0 = time.monotonic()
        export_onnx(model, tmp / ONNX_FILE, parity_seqs[:4], pad_id, exporter)
        export_s = time.monotonic() - t0
        diff = parity(model, tmp / ONNX_FILE, parity_seqs, pad_id)
        if not diff <= PARITY_TOLERANCE:
            raise RuntimeError(f"ONNX scores differ from PyTorch by {diff:.3g} (> {PARITY_TOLERANCE})")
        for extra in ("special_tokens_map.json", "generation_config.json"):
            (tmp / extra).unlink(missing_ok=True)
        files = {p.name: sha256_file(p) for p in sorted(tmp.iterdir()) if p.is_file()}
        manifest = {
            "format": FORMAT,
            **meta,
            "architecture": type(model).__name__,
            "padTokenId": pad_id,
            "truncation": "left",
            "onnx": {
                "file": ONNX_FILE,
                "inputs": ["input_ids", "attention_mask"],
                "output": "scores",
                "exporter": exporter,
                "opset": OPSET,
                "exportSeconds": round(export_s, 2),
                "maxAbsDiff": diff,
                "parityConversations": len(parity_seqs),
            },
            "tokenizer": {
                "tokenizer": "tokenizer.json",
                "config": "tokenizer_config.json",
                "chatTemplate": "chat_template.jinja",
            },
            "files": files,
        }
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        tmp.chmod(0o755)
        for p in tmp.iterdir():
            p.chmod(0o644)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return manifest
