"""The engine exits when its parent is SIGKILLed, even while its main thread is busy: a parent
process starts a child that arms parent_watch and spins in a pure-Python loop (holding the GIL
but for the interpreter's switches); the parent is SIGKILLed; the child must be gone within
seconds — by the kernel's parent-death signal, and by the watchdog thread alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ENGINE_ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import os, sys
sys.path.insert(0, sys.argv[1])
from agentjet_engine import parent_watch
parent_watch.install(poll_s=0.1, use_prctl=sys.argv[2] == "1")
print(os.getpid(), flush=True)
n = 0
while True:  # busy: never sleeps, never waits on I/O
    n += 1
"""

PARENT = """
import subprocess, sys
argv = [sys.executable, "-c", sys.argv[1], sys.argv[2], sys.argv[3]]
child = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
print(child.stdout.readline().strip(), flush=True)
child.wait()
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by init) counts as gone.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _orphan_exit_seconds(use_prctl: bool) -> float:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, CHILD, str(ENGINE_ROOT), "1" if use_prctl else "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        child_pid = int(parent.stdout.readline().strip())
        time.sleep(0.3)
        assert _alive(child_pid), "the busy child should run while its parent lives"
        killed = time.monotonic()
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = killed + 15
        while _alive(child_pid):
            if time.monotonic() > deadline:
                os.kill(child_pid, signal.SIGKILL)
                pytest.fail("the busy child outlived its SIGKILLed parent by 15 s")
            time.sleep(0.05)
        return time.monotonic() - killed
    finally:
        if parent.poll() is None:
            parent.kill()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux-only")
def test_busy_engine_dies_with_its_parent_by_pdeathsig() -> None:
    print(f"exited {_orphan_exit_seconds(use_prctl=True):.2f} s after its parent (prctl + watchdog)")


def test_busy_engine_dies_with_its_parent_by_the_watchdog_alone() -> None:
    print(f"exited {_orphan_exit_seconds(use_prctl=False):.2f} s after its parent (watchdog thread)")


def test_install_is_inert_without_a_parent_to_watch(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentjet_engine import parent_watch

    monkeypatch.setenv("AGENTJET_ENGINE_PARENT_WATCH", "0")
    assert parent_watch.install() is None
    monkeypatch.delenv("AGENTJET_ENGINE_PARENT_WATCH")
    monkeypatch.setattr(parent_watch.os, "getppid", lambda: 1)
    assert parent_watch.install() is None
