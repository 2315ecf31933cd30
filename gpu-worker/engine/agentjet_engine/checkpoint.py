"""Atomic training checkpoints through `torch.distributed.checkpoint` (DCP): trainable weights,
optimizer state, per-rank RNG states, weight version and load options.

One format for one process and for N FSDP ranks: DCP writes each rank's shards plus a global
metadata file, and loading reshards, so a checkpoint saved by N ranks restores into M (1 ↔ 2 is
tested). State dicts come from `torch.distributed.checkpoint.state_dict` (parameter names as keys;
only trainable parameters, so a LoRA checkpoint holds the adapter alone). All ranks write into one
temporary folder beside the target (one filesystem: the ranks run on one machine), rank 0 adds
`engine.json`, makes the checkpoint private (folders 0700, files 0600: it lies in the worker's run folder,
which is private), fsyncs everything and renames the folder into place. RNG states are saved per rank
(`rng-<rank>.pt`); a rank restoring a checkpoint saved by fewer ranks takes rank 0's.
Checkpoints of the earlier single-file format (`agentjet-engine-checkpoint/1`) still restore.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import uuid
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.distributed.checkpoint as dcp
from safetensors.torch import load_file
from torch.distributed.checkpoint.state_dict import (
    StateDictOptions,
    get_model_state_dict,
    get_optimizer_state_dict,
    set_model_state_dict,
    set_optimizer_state_dict,
)

from .distributed import RankGroup
from .errors import EngineError, invalid
from .fsutil import replace_dir

FORMAT = "agentjet-engine-checkpoint/2"
FORMAT_V1 = "agentjet-engine-checkpoint/1"
META, DCP_DIR = "engine.json", "dcp"
WEIGHTS_V1, OPTIMIZER_V1, RNG_V1 = "weights.safetensors", "optimizer.pt", "rng.pt"
_TRAINABLE = StateDictOptions(ignore_frozen_params=True)


def rng_state() -> dict[str, Any]:
    """Python, numpy, torch and CUDA generator states as tensors and plain values (weights_only-safe)."""
    version, py_state, gauss = random.getstate()
    np_kind, np_keys, np_pos, np_has_gauss, np_gauss = np.random.get_state()
    return {
        "python": {"version": version, "state": torch.tensor(py_state, dtype=torch.int64), "gauss": gauss},
        "numpy": {
            "kind": np_kind,
            "keys": torch.from_numpy(np_keys.astype(np.int64)),
            "pos": int(np_pos),
            "has_gauss": int(np_has_gauss),
            "gauss": float(np_gauss),
        },
        "torch": torch.get_rng_state(),
        "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
    }


def set_rng_state(state: dict[str, Any]) -> None:
    py = state["python"]
    random.setstate((py["version"], tuple(int(x) for x in py["state"].tolist()), py["gauss"]))
    npy = state["numpy"]
    np.random.set_state(
        (npy["kind"], npy["keys"].numpy().astype(np.uint32), npy["pos"], npy["has_gauss"], npy["gauss"])
    )
    torch.set_rng_state(state["torch"])
    if state["cuda"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"][: torch.cuda.device_count()])


def _fsync_dir(path: Path) -> None:
    if os.name == "nt":
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _private_fsynced_tree(root: Path) -> int:
    """Folders 0700 and files 0600 (whatever the umask made them), everything fsynced; the total bytes."""
    total = 0
    for file in sorted(p for p in root.rglob("*") if p.is_file()):
        file.chmod(0o600)
        with open(file, "rb") as f:
            os.fsync(f.fileno())
        total += file.stat().st_size
    for folder in sorted((p for p in root.rglob("*") if p.is_dir()), reverse=True):
        folder.chmod(0o700)
        _fsync_dir(folder)
    root.chmod(0o700)
    return total


def temp_path(path: str) -> str:
    """Where the ranks write before the rename (chosen on rank 0 and broadcast with the request)."""
    dst = Path(path).resolve()
    return str(dst.with_name(f".{dst.name}.tmp-{uuid.uuid4().hex[:12]}"))


def _states(model: torch.nn.Module, optimizer: torch.optim.Optimizer, with_optimizer: bool) -> dict[str, Any]:
    state: dict[str, Any] = {"model": get_model_state_dict(model, options=_TRAINABLE)}
    if with_optimizer:
        state["optim"] = get_optimizer_state_dict(model, optimizer, options=_TRAINABLE)
    return state


def save(
    path: str,
    tmp: str,
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    meta: dict[str, Any],
    group: RankGroup,
) -> int:
    """Every rank: write its shards into `tmp`; rank 0 then writes the metadata and renames `tmp` to
    `path` (replacing it). Returns the checkpoint's bytes (on rank 0; 0 elsewhere).

    A fresh optimizer (no step yet) is not saved, so restoring gives a fresh one again (saving it
    would initialise its moments and step count)."""
    dst, folder = Path(path).resolve(), Path(tmp)
    stepped = bool(optimizer.state)
    if group.leader:
        dst.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        folder.mkdir(parents=True, mode=0o700)
    group.barrier()
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*assuming the intent is to (save|load) in a single process.*")
            dcp.save(_states(model, optimizer, stepped), checkpoint_id=str(folder / DCP_DIR))
        torch.save(rng_state(), folder / f"rng-{group.rank}.pt")
        group.barrier()
        if not group.leader:
            return 0
        (folder / META).write_text(
            json.dumps({"format": FORMAT, "ranks": group.world_size, "optimizer": stepped, **meta}, indent=2),
            encoding="utf-8",
        )
        total = _private_fsynced_tree(folder)
        replace_dir(folder, dst)
        _fsync_dir(dst.parent)
        return total
    except BaseException:
        if group.leader:
            shutil.rmtree(folder, ignore_errors=True)
        raise


def read_meta(path: str) -> dict[str, Any]:
    folder = Path(path)
    if not (folder / META).is_file():
        raise invalid("path", f"{path!r} is not an engine checkpoint (no {META})", "not_a_checkpoint")
    meta = json.loads((folder / META).read_text(encoding="utf-8"))
    if meta.get("format") not in (FORMAT, FORMAT_V1):
        raise invalid("path", f"unsupported checkpoint format {meta.get('format')!r}", "not_a_checkpoint")
    return meta


def _mismatch(detail: str) -> EngineError:
    return EngineError(
        "state",
        "checkpoint_mismatch",
        f"checkpoint does not match the loaded model: {detail}; load the same base model with the "
        "same LoRA settings first",
    )


def restore(path: str, model: torch.nn.Module, optimizer: torch.optim.Optimizer, group: RankGroup) -> dict[str, Any]:
    """Every rank: load weights, optimizer and RNG into the loaded model; returns the metadata.

    The trainable parameter names and shapes must match the checkpoint's exactly (same base, same
    LoRA setup); DCP reshards to however many ranks load it."""
    meta = read_meta(path)
    folder = Path(path)
    if meta["format"] == FORMAT_V1:
        if group.distributed:
            raise EngineError(
                "state",
                "checkpoint_mismatch",
                f"{path!r} has the single-process format /1; restore it with one engine process, then save again",
            )
        _restore_v1(folder, model, optimizer)
        return meta
    expected = _states(model, optimizer, bool(meta.get("optimizer")))
    stored = dcp.FileSystemReader(str(folder / DCP_DIR)).read_metadata().state_dict_metadata
    names = {k.removeprefix("model.") for k in stored if k.startswith("model.")}
    missing, extra = sorted(set(expected["model"]) - names), sorted(names - set(expected["model"]))
    if missing or extra:
        raise _mismatch(
            f"{len(missing)} parameter(s) missing (e.g. {missing[:3]}), {len(extra)} unexpected (e.g. {extra[:3]})"
        )
    for name, value in expected["model"].items():
        if tuple(stored[f"model.{name}"].size) != tuple(value.shape):
            raise _mismatch(
                f"parameter {name}: checkpoint shape {tuple(stored[f'model.{name}'].size)} != model shape "
                f"{tuple(value.shape)}"
            )
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*assuming the intent is to (save|load) in a single process.*")
        dcp.load(expected, checkpoint_id=str(folder / DCP_DIR))
    set_model_state_dict(model, expected["model"], options=StateDictOptions(ignore_frozen_params=True, strict=False))
    if "optim" in expected:
        set_optimizer_state_dict(model, optimizer, expected["optim"], options=_TRAINABLE)
    else:
        optimizer.state.clear()
    own = folder / f"rng-{group.rank}.pt"
    set_rng_state(torch.load(own if own.is_file() else folder / "rng-0.pt", map_location="cpu", weights_only=True))
    return meta


def _restore_v1(folder: Path, model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> None:
    """Format /1: safetensors of the trainable parameters + optimizer.pt + rng.pt (one process)."""
    weights = load_file(str(folder / WEIGHTS_V1))
    expected = {name: p for name, p in model.named_parameters() if p.requires_grad}
    missing, extra = sorted(set(expected) - set(weights)), sorted(set(weights) - set(expected))
    if missing or extra:
        raise _mismatch(
            f"{len(missing)} parameter(s) missing (e.g. {missing[:3]}), {len(extra)} unexpected (e.g. {extra[:3]})"
        )
    for name, p in expected.items():
        if tuple(weights[name].shape) != tuple(p.shape):
            raise _mismatch(
                f"parameter {name}: checkpoint shape {tuple(weights[name].shape)} != model shape {tuple(p.shape)}"
            )
    optimizer_state = torch.load(folder / OPTIMIZER_V1, map_location="cpu", weights_only=True)
    rng = torch.load(folder / RNG_V1, map_location="cpu", weights_only=True)
    with torch.no_grad():
        for name, p in expected.items():
            p.copy_(weights[name].to(device=p.device, dtype=p.dtype))
    optimizer.load_state_dict(optimizer_state)
    set_rng_state(rng)
