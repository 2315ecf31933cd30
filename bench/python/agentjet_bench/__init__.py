"""The engine's benchmarks, beside the other benchmarks (not in the runtime package `agentjet_engine`).

Run with this folder on the Python path and the engine's interpreter, e.g. from the repository root
`PYTHONPATH=bench/python gpu-worker/engine/.venv/bin/python -m agentjet_bench.gpu`. Importing the package
puts `gpu-worker/engine` on the path too, so `agentjet_engine` is found from any working directory.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
ENGINE_DIR = ROOT / "gpu-worker" / "engine"
BENCH_PYTHON_DIR = ROOT / "bench" / "python"
BUILTIN_MODEL_DIR = ROOT / "resources" / "models" / "agentjet-tiny"

if str(ENGINE_DIR) not in sys.path:
    sys.path.append(str(ENGINE_DIR))
