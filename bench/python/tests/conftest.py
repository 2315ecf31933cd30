"""The benchmark package's tests: `agentjet_bench` from this folder's parent, `agentjet_engine` from the engine's."""

from __future__ import annotations

import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[3]
sys.path[:0] = [str(ROOT / "bench" / "python"), str(ROOT / "gpu-worker" / "engine")]

torch.set_num_threads(2)
