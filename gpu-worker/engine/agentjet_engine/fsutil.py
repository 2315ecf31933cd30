"""File-system helpers shared by checkpoints and model folders: atomic folder replacement."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from .errors import invalid


def replace_dir(src: Path, dst: Path) -> None:
    """Move folder `src` to `dst`, replacing an existing `dst` with at most a brief window of absence."""
    if dst.exists():
        if not dst.is_dir():
            raise invalid("path", f"{str(dst)!r} exists and is not a folder")
        old = dst.with_name(f".{dst.name}.old-{os.getpid()}")
        os.replace(dst, old)
        os.replace(src, dst)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(src, dst)
