"""The Python SDK against a real worker over HTTPS (`agentjet worker --tls self-signed`, the engine with
the built-in model): trusted with the certificate file the worker printed (``ca_file=`` or
AGENTJET_CA_FILE), refused without it. Run from the repo root:
gpu-worker/engine/.venv/bin/python -m pytest -q resources/sdk/python/test_agentjet_tls.py"""

import os
import re
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agentjet_sdk as aj  # noqa: E402
from worker_process import run_worker  # noqa: E402

ADMIN, JOIN = "py-tls-test-admin-0123456789", "py-tls-test-join-0123456789"
START_LINES: list[str] = []


@pytest.fixture(scope="module")
def worker():
    args = ["--tls", "self-signed", "--strategy", "C1", "--batch", "1000", "--max-tokens", "8"]
    yield from run_worker(ADMIN, JOIN, args, "aj-pytls-", 90, out=START_LINES)


@pytest.fixture(scope="module")
def cert_file(worker):
    m = re.search(r"TLS: self-signed certificate (\S+) · SHA-256 fingerprint (\S+)", "".join(START_LINES))
    assert m, "the worker printed no TLS line:\n" + "".join(START_LINES)
    return m.group(1)


def client(url, **kw):
    kw.setdefault("deadline_s", 10)
    return aj.SwarmClient(url, JOIN, initial_delay_s=0.05, max_delay_s=0.2, **kw)


def test_episode_over_https_with_the_certificate(worker, cert_file):
    assert worker.startswith("https://127.0.0.1:")
    c = client(worker, client_id="py-tls", ca_file=cert_file)

    def play(ep):
        out = ep.chat([{"role": "user", "content": "2+3?"}], max_tokens=8)
        assert out["choices"][0]["message"]["role"] == "assistant"
        return {"reward": 1.0}

    outcome = c.episode("tls-task", play)
    assert outcome["episodeId"]


def test_ca_file_from_the_environment(worker, cert_file, monkeypatch):
    monkeypatch.setenv("AGENTJET_CA_FILE", cert_file)
    assert client(worker).status()["model"] == "agentjet-tiny"


def test_refused_without_the_certificate(worker, monkeypatch):
    monkeypatch.delenv("AGENTJET_CA_FILE", raising=False)
    with pytest.raises(aj.SwarmError) as e:
        client(worker, deadline_s=0).status()
    assert "CERTIFICATE_VERIFY_FAILED" in e.value.message
