"""The campaign optimiser process (agentjet_campaign): Optuna ask/tell over JSON lines, SQLite resume."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from agentjet_campaign.service import Service

SPACE = {
    "lr": {"type": "float", "low": 1e-5, "high": 1e-3, "log": True},
    "groupSize": {"type": "categorical", "choices": [2, 4, 8]},
}


def call(s: Service, method: str, params: dict[str, Any] | None = None) -> Any:
    answer = s.handle(json.dumps({"id": 1, "method": method, "params": params or {}}))
    assert "error" not in answer, answer
    return answer["result"]


def error(s: Service, method: str, params: dict[str, Any] | None = None) -> dict[str, str]:
    answer = s.handle(json.dumps({"id": 2, "method": method, "params": params or {}}))
    assert "error" in answer, answer
    return answer["error"]


def opened(tmp_path: Path, **extra: Any) -> Service:
    s = Service()
    call(
        s,
        "open",
        {
            "storage": str(tmp_path / "study.sqlite"),
            "studyName": "t",
            "space": SPACE,
            "sampler": {"type": "tpe", "seed": 1, "startupTrials": 2},
            **extra,
        },
    )
    return s


def test_ask_report_tell_and_trials_survive_a_new_process(tmp_path: Path) -> None:
    s = opened(tmp_path)
    for i in range(3):
        t = call(s, "ask", {"defaultAttrs": {"seed": 0}})
        assert 1e-5 <= t["params"]["lr"] <= 1e-3 and t["params"]["groupSize"] in (2, 4, 8)
        assert t["attrs"] == {"seed": 0}
        assert call(s, "report", {"number": t["number"], "step": 1, "value": 0.1 * i}) == {"prune": False}
        call(s, "tell", {"number": t["number"], "state": "complete", "value": 0.2 * i, "attrs": {"wallS": 3}})
    again = opened(tmp_path)
    trials = call(again, "trials")["trials"]
    assert [t["state"] for t in trials] == ["complete"] * 3
    assert [t["value"] for t in trials] == [0.0, 0.2, 0.4]
    assert trials[1]["intermediate"] == [[1, 0.1]] and trials[1]["attrs"]["wallS"] == 3
    imp = call(again, "importance")
    assert set(imp["importance"]) == {"lr", "groupSize"}


def test_hyperband_prunes_a_trial_far_below_the_others(tmp_path: Path) -> None:
    s = opened(tmp_path, pruner={"type": "hyperband", "minResource": 1, "maxResource": 4, "reductionFactor": 2})
    for _ in range(4):
        t = call(s, "ask")
        for step in range(1, 5):
            call(s, "report", {"number": t["number"], "step": step, "value": 0.9})
        call(s, "tell", {"number": t["number"], "state": "complete", "value": 0.9})
    pruned = False
    for _ in range(4):
        t = call(s, "ask")
        for step in range(1, 5):
            if call(s, "report", {"number": t["number"], "step": step, "value": 0.0})["prune"]:
                call(s, "tell", {"number": t["number"], "state": "pruned"})
                pruned = True
                break
        else:
            call(s, "tell", {"number": t["number"], "state": "complete", "value": 0.0})
    assert pruned
    assert "pruned" in [t["state"] for t in call(s, "trials")["trials"]]


def test_recover_fails_and_reruns_what_a_dead_runner_left_running(tmp_path: Path) -> None:
    dead = opened(tmp_path)
    t = call(dead, "ask", {"defaultAttrs": {"seed": 1}})
    s = opened(tmp_path)
    rerun = call(s, "recover")["rerun"]
    assert rerun == [{"number": t["number"], "params": t["params"]}]
    again = call(s, "ask")
    assert again["params"] == t["params"] and again["attrs"] == {"seed": 1, "rerunOf": t["number"]}
    states = {x["number"]: x["state"] for x in call(s, "trials")["trials"]}
    assert states[t["number"]] == "fail" and states[again["number"]] == "running"
    assert call(s, "recover")["rerun"] == []  # its own running trial is not touched


def test_grid_sampler_and_enqueued_trials(tmp_path: Path) -> None:
    s = Service()
    call(
        s,
        "open",
        {
            "storage": str(tmp_path / "g.sqlite"),
            "studyName": "g",
            "space": SPACE,
            "sampler": {"type": "grid", "seed": 0},
            "grid": {"lr": [1e-4, 1e-3], "groupSize": [2, 4]},
        },
    )
    call(s, "enqueue", {"params": {"lr": 5e-4, "groupSize": 8}, "attrs": {"source": "agent"}})
    first = call(s, "ask")
    assert first["params"] == {"lr": 5e-4, "groupSize": 8} and first["attrs"] == {"source": "agent"}
    call(s, "tell", {"number": first["number"], "state": "complete", "value": 0.5})
    seen = set()
    for _ in range(4):
        t = call(s, "ask")
        seen.add((t["params"]["lr"], t["params"]["groupSize"]))
        # Telling the last grid point must not raise (Optuna's GridSampler would call study.stop()).
        call(s, "tell", {"number": t["number"], "state": "complete", "value": 0.1})
    assert seen == {(1e-4, 2), (1e-4, 4), (1e-3, 2), (1e-3, 4)}


def test_bad_input_is_an_error_and_the_service_goes_on(tmp_path: Path) -> None:
    s = Service()
    assert error(s, "ask")["code"] == "not_open"
    assert s.handle("not json")["error"]["code"] == "bad_json"
    assert s.handle("[1]")["error"]["code"] == "not_object"
    assert error(s, "nope")["type"] == "unknown_method"
    assert (
        "space.lr"
        in error(
            s,
            "open",
            {
                "storage": str(tmp_path / "x.sqlite"),
                "studyName": "x",
                "space": {"lr": {"type": "float", "low": "a", "high": 1}},
            },
        )["message"]
    )
    s = opened(tmp_path)
    assert "outside" in error(s, "enqueue", {"params": {"lr": 5.0, "groupSize": 2}})["message"]
    assert "not in the search space" in error(s, "enqueue", {"params": {"nope": 1}})["message"]
    t = call(s, "ask")
    assert "finite" in error(s, "report", {"number": t["number"], "step": 1, "value": None})["message"]
    assert error(s, "tell", {"number": 999, "state": "complete", "value": 1})["code"] == "unknown_trial"
    changed = Service()
    err = error(
        changed, "open", {"storage": str(tmp_path / "study.sqlite"), "studyName": "t", "space": {"lr": SPACE["lr"]}}
    )
    assert err["code"] == "space_changed"


def test_the_process_speaks_json_lines_and_exits_on_eof(tmp_path: Path) -> None:
    engine_dir = Path(__file__).resolve().parents[1]
    lines = [
        json.dumps({"id": 1, "method": "ping"}),
        "garbage",
        json.dumps(
            {
                "id": 3,
                "method": "open",
                "params": {"storage": str(tmp_path / "p.sqlite"), "studyName": "p", "space": SPACE},
            }
        ),
        json.dumps({"id": 4, "method": "ask"}),
    ]
    done = subprocess.run(
        [sys.executable, "-m", "agentjet_campaign"],
        cwd=engine_dir,
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    answers = [json.loads(x) for x in done.stdout.splitlines()]
    assert [a.get("id") for a in answers] == [1, None, 3, 4]
    assert "optuna" in answers[0]["result"] and answers[1]["error"]["code"] == "bad_json"
    assert answers[3]["result"]["number"] == 0
