"""The Python SDK against a real worker: `agentjet worker` (the engine with the built-in model) as a
child process. Run from the repo root: gpu-worker/engine/.venv/bin/python -m pytest -q resources/sdk/python"""

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agentjet_sdk as aj  # noqa: E402
from worker_process import run_worker  # noqa: E402

ADMIN, JOIN = "py-sdk-test-admin-0123456789", "py-sdk-test-join-0123456789"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "calc",
            "description": "Evaluate an arithmetic expression.",
            "parameters": {
                "type": "object",
                "properties": {"expression": {"type": "string"}},
                "required": ["expression"],
            },
        },
    }
]


@pytest.fixture(scope="module")
def worker():
    yield from run_worker(ADMIN, JOIN, ["--strategy", "C1", "--batch", "1000", "--max-tokens", "16"], "aj-pysdk-", 60)


def admin(url, method, path):
    req = urllib.request.Request(url + path, method=method, headers={"authorization": f"Bearer {ADMIN}"})
    with urllib.request.urlopen(req, timeout=10) as res:
        return json.loads(res.read())


def episode_status(url, episode_id):
    return admin(url, "GET", f"/swarm/v1/episodes/{episode_id}")["episode"]["status"]


def fast_client(url, **kw):
    return aj.SwarmClient(url, JOIN, initial_delay_s=0.05, max_delay_s=0.2, deadline_s=15, **kw)


def test_claim_chat_with_tools_end(worker):
    client = fast_client(worker, client_id="py-sdk")
    c = client.claim(task_id="calc-1")
    assert c.base_url == worker + "/v1" and c.model == "agentjet-tiny" and c.kind == "train"
    out = aj.chat(
        c.base_url,
        c.api_key,
        [{"role": "user", "content": "What is 12 + 7?"}],
        tools=TOOLS,
        model=c.model,
        max_tokens=16,
    )
    assert len(out["choices"]) == 1 and out["choices"][0]["message"]["role"] == "assistant"
    end = client.end(c.episode_id, "calc-1", 0.5, success=False, metrics={"turns": 1})
    assert end == {"episodeId": c.episode_id, "accepted": True, "pooled": True, "calls": 1}
    s = client.status()
    assert any(x["clientId"] == "py-sdk" and x["counters"]["ended"] >= 1 for x in s["clients"])
    assert client.agree_sync()["agreed"] is True


def test_claims_carry_the_code_version_from_the_environment(worker, monkeypatch):
    monkeypatch.setenv("AGENTJET_SERVER_URL", worker)
    monkeypatch.setenv("AGENTJET_JOIN_TOKEN", JOIN)
    monkeypatch.setenv("AGENTJET_CODE_VERSION", "0123abcd4567")
    client = aj.SwarmClient.from_env(initial_delay_s=0.05, max_delay_s=0.2, deadline_s=15)
    c = client.claim(task_id="tagged")
    assert admin(worker, "GET", f"/swarm/v1/episodes/{c.episode_id}")["episode"]["codeVersion"] == "0123abcd4567"
    client.abort(c.episode_id, "test done")


def test_episode_function_and_context_forms(worker):
    client = fast_client(worker)
    res = client.episode(
        "t-fn",
        lambda ep: {
            "reward": 1.0,
            "success": True,
            "metrics": {"calls": len(ep.chat([{"role": "user", "content": "hi"}])["choices"])},
        },
    )
    assert res["accepted"] is True and res["calls"] == 1
    with client.episode("t-ctx", kind="eval") as ep:
        ep.chat([{"role": "user", "content": "hi"}], max_tokens=8)
        ep.end(reward=0.25)
    assert episode_status(worker, ep.episode_id) == "ended"
    with client.episode("t-forgot") as ep2:
        pass
    assert episode_status(worker, ep2.episode_id) == "aborted"


def test_episode_aborts_when_fn_raises(worker):
    client = fast_client(worker)
    seen = {}

    def boom(ep):
        seen["id"] = ep.episode_id
        raise RuntimeError("env crashed")

    with pytest.raises(RuntimeError, match="env crashed"):
        client.episode("boom", boom)
    assert episode_status(worker, seen["id"]) == "aborted"
    with pytest.raises(aj.SwarmError) as e:
        client.end(seen["id"], "boom", 1.0)
    assert e.value.status == 409 and e.value.code == "episode_aborted" and e.value.type == "conflict_error"


def test_episode_deadline_aborts(worker):
    client = fast_client(worker)
    seen = {}

    def slow(ep):
        seen["id"] = ep.episode_id
        assert ep.cancelled.wait(5), "the deadline should have cancelled the episode"
        return {"reward": 1.0}

    t0 = time.monotonic()
    with pytest.raises(aj.SwarmError) as e:
        client.episode("slow", slow, deadline_s=0.3)
    assert e.value.code == "episode_deadline" and time.monotonic() - t0 < 3
    assert episode_status(worker, seen["id"]) == "aborted"


def test_retries_while_paused(worker):
    retries = []
    client = fast_client(worker, on_retry=lambda what, attempt, delay, err: retries.append(err.code))
    admin(worker, "POST", "/swarm/v1/control/pause")
    threading.Timer(0.5, lambda: admin(worker, "POST", "/swarm/v1/control/start")).start()
    c = client.claim(task_id="paused")
    assert len(retries) >= 2 and set(retries) == {"paused"}
    client.abort(c.episode_id, "test done")


def test_refused_connection_retries_then_gives_up():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    retries = []
    client = aj.SwarmClient(
        f"http://127.0.0.1:{port}",
        JOIN,
        deadline_s=0.5,
        initial_delay_s=0.05,
        max_delay_s=0.1,
        on_retry=lambda *a: retries.append(a[3].code),
    )
    with pytest.raises(aj.SwarmError) as e:
        client.status()
    assert e.value.status == 0 and e.value.code == "connection_refused" and "gave up after" in str(e.value)
    assert len(retries) >= 2


def test_sigterm_aborts_in_flight_episode(worker):
    script = (
        "import sys, time; sys.path.insert(0, sys.argv[1]); import agentjet_sdk as aj\n"
        "aj.install_signal_handlers(log=print)\n"
        "def play(ep):\n    print('claimed', ep.episode_id, flush=True); time.sleep(60)\n"
        "aj.SwarmClient.from_env().episode('sigterm-task', play)\n"
    )
    env = {**os.environ, "AGENTJET_SERVER_URL": worker, "AGENTJET_JOIN_TOKEN": JOIN}
    proc = subprocess.Popen(
        [sys.executable, "-c", script, os.path.dirname(os.path.abspath(__file__))],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline()
    m = re.match(r"claimed (\S+)", line)
    assert m, line
    proc.terminate()
    rest = proc.stdout.read()
    assert proc.wait(10) == 143
    assert "SIGTERM: aborting 1 in-flight episode(s)" in rest
    assert episode_status(worker, m.group(1)) == "aborted"
