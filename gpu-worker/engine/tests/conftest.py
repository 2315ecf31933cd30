"""Shared fixtures: a tiny built-in model folder made once per session, and freshly loaded engines."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

ENGINE_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ENGINE_ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from agentjet_engine import builtin  # noqa: E402
from agentjet_engine.engine import Engine  # noqa: E402
from corpus import transcripts  # noqa: E402

torch.set_num_threads(2)


@pytest.fixture(scope="session")
def corpus() -> list[dict[str, Any]]:
    return transcripts(200, seed=1)


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory: pytest.TempPathFactory, corpus: list[dict[str, Any]]) -> Path:
    texts = [builtin.render_text(t["messages"], t["tools"]) for t in corpus]
    return builtin.create_model_folder(
        texts, tmp_path_factory.mktemp("model") / "tiny", size="test", seed=0, vocab_size=512
    )


@pytest.fixture
def make_engine(model_dir: Path) -> Callable[..., Engine]:
    def make(**load: Any) -> Engine:
        engine = Engine(threads=2)
        engine.load({"path": str(model_dir), "seed": 0, "threads": 2, **load})
        return engine

    return make


@pytest.fixture
def engine(make_engine: Callable[..., Engine]) -> Engine:
    return make_engine()
