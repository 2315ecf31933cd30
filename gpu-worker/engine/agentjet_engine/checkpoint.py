"""Atomic training checkpoints: trainable weights, optimizer, RNG states, weight version, load options."""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors.torch import load_file, save_file

from .errors import EngineError, invalid
from .fsutil import replace_dir

FORMAT = "agentjet-engine-checkpoint/1"
WEIGHTS, OPTIMIZER, RNG, META = "weights.safetensors", "optimizer.pt", "rng.pt", "engine.json"


def rng_state() -> dict[str, Any]:
    """Python, numpy, torch and CUDA generator states as tensors and plain values (weights_only-safe)."""
    version, py_state, gauss = random.getstate()
    np_kind, np_keys, np_pos, np_has_gauss, np_gauss = np.random.get_state()
    state: dict[str, Any] = {
        "python": {"version": version, "state": torch.tensor(py_state, dtype=torch.int64), "gauss": gauss},
        "numpy": {"kind": np_kind, "keys": torch.from_numpy(np_keys.astype(np.int64)), "pos": int(np_pos),
                  "has_gauss": int(np_has_gauss), "gauss": float(np_gauss)},
        "torch": torch.get_rng_state(),
        "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
    }
    return state


def set_rng_state(state: dict[str, Any]) -> None:
    py = state["python"]
    random.setstate((py["version"], tuple(int(x) for x in py["state"].tolist()), py["gauss"]))
    npy = state["numpy"]
    np.random.set_state((npy["kind"], npy["keys"].numpy().astype(np.uint32), npy["pos"], npy["has_gauss"],
                         npy["gauss"]))
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


def save(path: str, named_params: list[tuple[str, torch.nn.Parameter]], optimizer: torch.optim.Optimizer,
         meta: dict[str, Any]) -> int:
    """Write the checkpoint into a temp folder beside `path`, fsync it, then rename; returns its bytes."""
    dst = Path(path).resolve()
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dst.name}.tmp-", dir=dst.parent))
    try:
        save_file({name: p.detach().to("cpu").contiguous() for name, p in named_params}, str(tmp / WEIGHTS))
        torch.save(optimizer.state_dict(), tmp / OPTIMIZER)
        torch.save(rng_state(), tmp / RNG)
        (tmp / META).write_text(json.dumps({"format": FORMAT, **meta}, indent=2), encoding="utf-8")
        total = 0
        for file in tmp.iterdir():
            with open(file, "rb") as f:
                os.fsync(f.fileno())
            total += file.stat().st_size
        tmp.chmod(0o755)
        replace_dir(tmp, dst)
        _fsync_dir(dst.parent)
        return total
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def read_meta(path: str) -> dict[str, Any]:
    folder = Path(path)
    if not (folder / META).is_file():
        raise invalid("path", f"{path!r} is not an engine checkpoint (no {META})", "not_a_checkpoint")
    meta = json.loads((folder / META).read_text(encoding="utf-8"))
    if meta.get("format") != FORMAT:
        raise invalid("path", f"unsupported checkpoint format {meta.get('format')!r}", "not_a_checkpoint")
    return meta


def restore(path: str, named_params: list[tuple[str, torch.nn.Parameter]],
            optimizer: torch.optim.Optimizer) -> dict[str, Any]:
    """Copy weights into the loaded parameters, then load optimizer and RNG states; returns the metadata.

    The parameter names and shapes must match the loaded model exactly (same base, same LoRA setup).
    """
    meta = read_meta(path)
    folder = Path(path)
    weights = load_file(str(folder / WEIGHTS))
    expected = {name: p for name, p in named_params}
    missing, extra = sorted(set(expected) - set(weights)), sorted(set(weights) - set(expected))
    if missing or extra:
        raise EngineError("state", "checkpoint_mismatch",
                          f"checkpoint does not match the loaded model: {len(missing)} parameter(s) missing "
                          f"(e.g. {missing[:3]}), {len(extra)} unexpected (e.g. {extra[:3]}); "
                          "load the same base model with the same LoRA settings first")
    for name, p in expected.items():
        if tuple(weights[name].shape) != tuple(p.shape):
            raise EngineError("state", "checkpoint_mismatch",
                              f"parameter {name}: checkpoint shape {tuple(weights[name].shape)} "
                              f"!= model shape {tuple(p.shape)}")
    optimizer_state = torch.load(folder / OPTIMIZER, map_location="cpu", weights_only=True)
    rng = torch.load(folder / RNG, map_location="cpu", weights_only=True)
    with torch.no_grad():
        for name, p in expected.items():
            p.copy_(weights[name].to(device=p.device, dtype=p.dtype))
    optimizer.load_state_dict(optimizer_state)
    set_rng_state(rng)
    return meta
