"""Reward models: the labels dataset, training (pairwise / pointwise), the held-out split, the ONNX export and
its parity with PyTorch (onnxruntime), the folder manifest, and the `python -m agentjet_engine.reward_model`
process with its JSON-lines events."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
import pytest
import torch
from agentjet_engine.reward_data import DatasetError, heldout_groups, read_dataset, split, training_pairs
from agentjet_engine.reward_export import MANIFEST, folder_hash, onnx_scores, sha256_file, verify_folder
from agentjet_engine.reward_train import load_reward_model
from corpus import CALC_TOOL

ENGINE_ROOT = Path(__file__).resolve().parents[1]


def conversation(rng: random.Random, good: bool) -> dict[str, Any]:
    a, b = rng.randint(0, 99), rng.randint(0, 99)
    answer = f"#### {a + b}" if good else "I am not sure, sorry."
    return {
        "tools": [CALC_TOOL],
        "messages": [
            {"role": "system", "content": "You are a calculator agent."},
            {"role": "user", "content": f"What is {a} + {b}?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "calc", "arguments": json.dumps({"expression": f"{a}+{b}"})},
                    }
                ],
            },
            {"role": "tool", "content": str(a + b), "tool_call_id": "c1"},
            {"role": "assistant", "content": answer},
        ],
    }


def write_dataset(path: Path, groups: int = 16, per_group: int = 4, seed: int = 0, pairs_too: bool = True) -> Path:
    rng = random.Random(seed)
    lines = []
    for g in range(groups):
        ids = []
        for k in range(per_group):
            good = k % 2 == 0
            cid = f"g{g}-e{k}"
            lines.append({"kind": "conversation", "id": cid, "group": f"task-{g}", **conversation(rng, good)})
            lines.append({"kind": "point", "id": cid, "label": int(good)})
            ids.append(cid)
        if pairs_too:
            lines.append({"kind": "pair", "chosen": ids[0], "rejected": ids[1]})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def run_rm(*args: str) -> tuple[int, list[dict[str, Any]], str]:
    proc = subprocess.run(
        [sys.executable, "-m", "agentjet_engine.reward_model", *args],
        cwd=ENGINE_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return proc.returncode, events, proc.stderr


def test_dataset_parsing_and_split(tmp_path: Path) -> None:
    data = read_dataset(str(write_dataset(tmp_path / "d.jsonl")))
    assert len(data.conversations) == 64 and len(data.points) == 64 and len(data.pairs) == 16
    pairs = training_pairs(data)
    # Each group of 2 good + 2 bad implies 4 pairs; the explicit pair is one of them.
    assert len(pairs) == 16 * 4
    sp = split(data, pairs, 0.25, seed=3)
    held = {data.conversations[c].group for p in sp.heldout_pairs for c in p}
    trained = {data.conversations[c].group for p in sp.train_pairs for c in p}
    assert len(held) == 4 and not held & trained
    assert heldout_groups({"a", "b"}, 0.01, 0) and len(heldout_groups({"a", "b"}, 0.99, 0)) == 1


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"kind": "point", "id": "x", "label": 1}', "no conversation 'x'"),
        ('{"kind": "pair", "chosen": "a", "rejected": "a"}', "a pair label"),
        ('{"kind": "conversation", "id": "a", "group": "g", "messages": []}', "messages: a non-empty array"),
        (
            '{"kind": "conversation", "id": "a", "group": "g", "messages": [{"role": "robot", "content": "x"}]}',
            "role: must be one of",
        ),
        ('{"kind": "mystery"}', "kind: one of"),
        ("not json", "invalid JSON"),
    ],
)
def test_dataset_errors_name_the_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(
        '{"kind": "conversation", "id": "ok", "group": "g", "messages": [{"role": "user", "content": "hi"}]}\n'
        + line
        + "\n"
    )
    with pytest.raises(DatasetError) as err:
        read_dataset(str(path))
    assert f"{path}:2" in str(err.value) and message in str(err.value)


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory, model_dir: Path) -> tuple[Path, list[dict[str, Any]]]:
    tmp = tmp_path_factory.mktemp("rm")
    data = write_dataset(tmp / "labels.jsonl")
    rc, events, stderr = run_rm(
        "train",
        "--data",
        str(data),
        "--base",
        str(model_dir),
        "--out",
        str(tmp / "rm-v1"),
        "--loss",
        "both",
        "--epochs",
        "4",
        "--lr",
        "3e-4",
        "--batch",
        "8",
        "--heldout",
        "0.25",
        "--max-length",
        "200",
        "--threads",
        "2",
    )
    assert rc == 0, stderr[-3000:]
    return tmp / "rm-v1", events


def test_train_learns_and_reports_heldout_accuracy(trained: tuple[Path, list[dict[str, Any]]]) -> None:
    folder, events = trained
    kinds = [e["event"] for e in events]
    assert kinds[0] == "start" and "step" in kinds and kinds[-2:] == ["exported", "done"]
    start = events[0]
    assert start["heldoutPairs"] > 0 and start["trainPairs"] > 0
    done = events[-1]
    metrics = done["manifest"]["metrics"]
    # Good conversations end with "#### N", bad ones without: an easy signal the model must pick up.
    assert metrics["heldoutAccuracy"] >= 0.9, metrics
    assert metrics["heldout"]["pointAccuracy"] >= 0.9, metrics
    assert done["sha256"] == folder_hash(folder)


def test_folder_manifest_and_onnx_parity(trained: tuple[Path, list[dict[str, Any]]], tmp_path: Path) -> None:
    folder, _ = trained
    manifest = verify_folder(folder)
    assert {
        "model.onnx",
        "model.safetensors",
        "config.json",
        "tokenizer.json",
        "tokenizer_config.json",
        "chat_template.jinja",
    } <= set(manifest["files"])
    assert manifest["onnx"]["maxAbsDiff"] <= 1e-4 and manifest["architecture"].endswith("ForSequenceClassification")
    # Independent check: fresh PyTorch model from the saved weights vs onnxruntime, batched with padding.
    model = load_reward_model(str(folder), torch.device("cpu"))
    session = ort.InferenceSession(str(folder / "model.onnx"), providers=["CPUExecutionProvider"])
    rng = torch.Generator().manual_seed(0)
    seqs = [torch.randint(3, 500, (int(n),), generator=rng).tolist() for n in (5, 17, 40, 120, 3)]
    pad = manifest["padTokenId"]
    with torch.no_grad():
        ref = np.array([float(model(input_ids=torch.tensor([s])).logits[0, 0]) for s in seqs])
    got = onnx_scores(session, seqs, pad)
    assert np.max(np.abs(got - ref)) <= 1e-4
    # A tampered file is refused.
    copy = tmp_path / "copy"
    copy.mkdir()
    for p in folder.iterdir():
        (copy / p.name).write_bytes(p.read_bytes())
    (copy / "tokenizer_config.json").write_text("{}")
    with pytest.raises(ValueError, match="SHA-256"):
        verify_folder(copy)


@pytest.mark.parametrize("name", ["../x/model.onnx", "/etc/hostname", "..", "link.onnx"])
def test_verify_folder_reads_nothing_outside_the_folder(tmp_path: Path, name: str) -> None:
    folder = tmp_path / "rm"
    folder.mkdir()
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "model.onnx").write_bytes(b"elsewhere")
    (folder / "link.onnx").symlink_to(tmp_path / "x" / "model.onnx")
    target = {"link.onnx": tmp_path / "x" / "model.onnx", "..": tmp_path}.get(name, folder / name)
    digest = sha256_file(target) if target.is_file() else "0" * 64
    (folder / MANIFEST).write_text(json.dumps({"format": "agentjet-reward-model/1", "files": {name: digest}}))
    with pytest.raises(ValueError, match="not a file name inside the folder|leads outside the folder"):
        verify_folder(folder)


def test_score_command_prints_ids_and_both_scores(trained: tuple[Path, list[dict[str, Any]]], tmp_path: Path) -> None:
    folder, _ = trained
    rng = random.Random(5)
    data = tmp_path / "convs.jsonl"
    data.write_text("".join(json.dumps({"id": f"c{i}", **conversation(rng, i % 2 == 0)}) + "\n" for i in range(4)))
    rc, rows, stderr = run_rm("score", "--model", str(folder), "--data", str(data))
    assert rc == 0, stderr[-2000:]
    assert [r["id"] for r in rows] == ["c0", "c1", "c2", "c3"]
    for r in rows:
        assert len(r["tokenIds"]) > 20 and abs(r["torch"] - r["onnx"]) <= 1e-4
    assert rows[0]["torch"] > rows[1]["torch"] and rows[2]["torch"] > rows[3]["torch"]


def test_train_refuses_bad_input_with_an_error_event(tmp_path: Path, model_dir: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "point", "id": "nope", "label": 1}\n')
    rc, events, _ = run_rm("train", "--data", str(bad), "--base", str(model_dir), "--out", str(tmp_path / "x"))
    assert rc == 1 and events[-1]["event"] == "error" and "no conversation 'nope'" in events[-1]["error"]["message"]
    assert not (tmp_path / "x").exists()
    rc, events, _ = run_rm(
        "train",
        "--data",
        str(write_dataset(tmp_path / "ok.jsonl", groups=2)),
        "--base",
        str(tmp_path),
        "--out",
        str(tmp_path / "y"),
    )
    assert rc == 1 and "no config.json" in events[-1]["error"]["message"]
    assert MANIFEST == "reward_model.json"


@pytest.mark.parametrize("exporter", ["torchscript", "dynamo"])
def test_both_exporters_pass_parity(tmp_path: Path, model_dir: Path, exporter: str) -> None:
    from agentjet_engine.reward_export import export_onnx, parity

    model = load_reward_model(str(model_dir), torch.device("cpu"))
    seqs = [[5, 6, 7, 8, 9, 10], [11, 12, 13], list(range(20, 80))]
    export_onnx(model, tmp_path / "m.onnx", seqs[:2], int(model.config.pad_token_id), exporter)
    assert parity(model, tmp_path / "m.onnx", seqs, int(model.config.pad_token_id)) <= 1e-4
    with pytest.raises(ValueError, match="exporter must be one of"):
        export_onnx(model, tmp_path / "x.onnx", seqs, 0, "magic")


def test_plan_takes_whole_task_groups_once_per_epoch(tmp_path: Path) -> None:
    from agentjet_engine.reward_train import TrainConfig, plan

    data = read_dataset(str(write_dataset(tmp_path / "d.jsonl", groups=10, per_group=4)))
    sp = split(data, training_pairs(data), 0.2, seed=1)
    cfg = TrainConfig(data="", base="", out="", loss="both", epochs=2, batch=8)
    steps = plan(cfg, data, sp, random.Random(0))
    group = {cid: c.group for cid, c in data.conversations.items()}
    epoch_groups: list[str] = []
    for pairs, points in steps[: len(steps) // 2]:
        groups = {group[c] for p in pairs for c in p} | {group[c] for c, _ in points}
        assert len(groups) == 2  # 8 conversations = two groups of 4
        epoch_groups += sorted(groups)
    assert sorted(epoch_groups) == sorted({group[c] for p in sp.train_pairs for c in p})
    assert sum(len(p) for p, _ in steps) == 2 * len(sp.train_pairs)
    pointwise = plan(
        TrainConfig(data="", base="", out="", loss="pointwise", epochs=1, batch=8), data, sp, random.Random(0)
    )
    assert all(not pairs for pairs, _ in pointwise) and sum(len(q) for _, q in pointwise) == len(sp.train_points)
