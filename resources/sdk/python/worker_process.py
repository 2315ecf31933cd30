"""Test support for the SDK suites: `agentjet worker` (the engine with the built-in model) as a child
process on a free port, its URL read from what it prints, its output drained, killed at the end."""

import os
import re
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator

import pytest

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def run_worker(
    admin: str, join: str, args: list[str], prefix: str, start_timeout_s: float, out: list[str] | None = None
) -> Iterator[str]:
    """Yields the serving worker's URL (for a pytest fixture: `yield from run_worker(...)`); its start-up
    lines go to `out`."""
    run_dir = tempfile.mkdtemp(prefix=prefix)
    env = {**os.environ, "AGENTJET_ADMIN_TOKEN": admin, "AGENTJET_JOIN_TOKEN": join}
    cmd = [
        "node",
        os.path.join(REPO_ROOT, "bin", "agentjet.mjs"),
        "worker",
        "--port",
        "0",
        "--run-dir",
        os.path.join(run_dir, "run"),
        "--threads",
        "1",
        "--seed",
        "1",
        *args,
    ]
    proc = subprocess.Popen(cmd, cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url, lines, t0 = None, [], time.monotonic()
    while url is None and time.monotonic() - t0 < start_timeout_s:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        m = re.search(r"listening on (https?://\S+)", line)
        if m:
            url = m.group(1)
    if url is None:
        proc.kill()
        pytest.fail("worker did not start:\n" + "".join(lines[-40:]))
    # The lines printed right after "listening on" (tokens, TLS certificate) come before any request.
    while out is not None and (line := proc.stdout.readline()) and not line.startswith("  tokens:"):
        lines.append(line)
    if out is not None:
        out.extend(lines)
    threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()  # keep draining its output
    try:
        yield url
    finally:
        proc.kill()
        proc.wait()
