"""The engine never outlives its worker: when the parent process is gone — stopped, crashed or
SIGKILLed — the engine exits by itself, even while its main thread is busy (a long render, a
generation, a training step).

Two mechanisms, either one enough:
- Linux: ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` through ctypes — the kernel kills the engine the
  moment the worker exits (the worker spawns it from its main thread, whose exit is the trigger);
- everywhere: a daemon thread that polls ``os.getppid()`` and calls ``os._exit`` once the parent
  changed (the engine was re-parented). The GIL is released by torch's kernels and switched every
  few milliseconds between Python threads, so the thread runs even while the main thread works.

Nothing here touches the model; the hook in ``__main__`` is one call to ``install()``.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
#: Exit status of an engine whose parent vanished.
ORPHANED_EXIT = 70


def _set_pdeathsig() -> bool:
    """Asks the Linux kernel to SIGKILL this process when its parent exits; False where unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _orphaned(parent: int) -> None:
    try:
        os.write(2, f"agentjet engine: parent process {parent} is gone; exiting\n".encode())
    finally:
        os._exit(ORPHANED_EXIT)


def _watch(parent: int, poll_s: float) -> None:
    while True:
        if os.getppid() != parent:
            _orphaned(parent)
        time.sleep(poll_s)


def install(poll_s: float = 0.5, use_prctl: bool = True) -> threading.Thread | None:
    """Arms both mechanisms for the current parent; returns the watchdog thread (None when the
    parent is already init, i.e. the engine was started on its own). ``AGENTJET_ENGINE_PARENT_WATCH=0``
    turns it off."""
    if os.environ.get("AGENTJET_ENGINE_PARENT_WATCH", "1") == "0":
        return None
    parent = os.getppid()
    if parent <= 1:
        return None
    if use_prctl:
        _set_pdeathsig()
    # The parent may have died before prctl took effect: then the kernel will not signal us.
    if os.getppid() != parent:
        _orphaned(parent)
    thread = threading.Thread(target=_watch, args=(parent, poll_s), name="agentjet-parent-watch", daemon=True)
    thread.start()
    return thread
