"""Entry point: `python -m agentjet_engine` serves protocol frames on stdin/stdout, logs on stderr."""

from __future__ import annotations

import logging
import os
import sys


def _claim_stdout() -> int:
    """Keep a private descriptor for frames and point fd 1 at stderr, so that nothing printed by any
    library (Python or native) can corrupt the frame stream."""
    frames_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    if os.name == "nt":
        import msvcrt

        msvcrt.setmode(frames_fd, os.O_BINARY)
        msvcrt.setmode(0, os.O_BINARY)
    return frames_fd


def main() -> int:
    from .parent_watch import install as watch_parent

    watch_parent()  # the engine exits when its worker is gone (SIGKILL included)
    frames_fd = _claim_stdout()
    # Everything is local: never reach for the model hub.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    logging.basicConfig(
        stream=sys.stderr,
        level=os.environ.get("AGENTJET_ENGINE_LOG", "INFO").upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )

    from transformers.utils import logging as hf_logging

    from .distributed import exit_rank, follow, start_from_env
    from .engine import Engine
    from .framing import FrameReader
    from .server import Server

    hf_logging.disable_progress_bar()
    threads = os.environ.get("AGENTJET_ENGINE_THREADS")
    group = start_from_env()  # one process, or one of torchrun's ranks (distributed.py)
    engine = Engine(threads=int(threads) if threads and threads.isdigit() else None, group=group)
    if not group.leader:  # follower ranks never read frames: rank 0 drives them (distributed.follow)
        exit_rank(follow(group, engine.run_collective))
    logging.getLogger("agentjet_engine").info("engine ready (pid %d)", os.getpid())
    with os.fdopen(frames_fd, "wb") as out:
        try:
            Server(engine).serve(FrameReader(sys.stdin.fileno()), out, eof_grace_s=5.0)
        except KeyboardInterrupt:
            pass
        finally:
            engine.close()
    if group.distributed:
        exit_rank(0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
