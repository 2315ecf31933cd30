"""Calculator-agent swarm client in Python, through the single-file Python SDK (agentjet_sdk.py).

A minimal port of the TypeScript env: a `calc` tool evaluated safely with `ast` (numbers and + - * /
only), reward 1 when the final answer line is `#### N` with the task's answer. Loops forever over
random train tasks (seeded by AGENTJET_CLIENT_ID), each played AGENTJET_GROUP_SIZE times at once on
threads (the advantage group, concurrent like the TypeScript clients' so that the worker's continuous
batching serves them together); AGENTJET_MAX_EPISODES bounds it (for tests).
"""

from __future__ import annotations

import ast
import json
import operator
import os
import random
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "sdk", "python"))
from agentjet_sdk import SwarmClient, chat, install_signal_handlers  # noqa: E402

SYSTEM_PROMPT = "You are a calculator agent. Use the calc tool, then answer as #### <number>."
CALC_TOOL = {
    "type": "function",
    "function": {
        "name": "calc",
        "description": "Evaluate an arithmetic expression.",
        "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]},
    },
}
MAX_TURNS = 4
ANSWER_LINE = re.compile(r"^####\s*(-?\d+(?:\.\d+)?)\s*$")
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _eval(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        v = _eval(node.operand)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_eval(node.left), _eval(node.right))
    raise ValueError("unsupported expression")


def calc(expression: str) -> str:
    """The tool's reply: the value (integers without a decimal point) or `error: ...`."""
    if len(expression) > 200:
        return "error: expression too long"
    try:
        value = _eval(ast.parse(expression, mode="eval"))
    except ZeroDivisionError:
        return "error: division by zero"
    except (SyntaxError, ValueError, RecursionError):
        return "error: invalid expression"
    return str(int(value)) if value == int(value) else f"{value:.6g}"


def tool_reply(call: Dict[str, Any]) -> str:
    fn = call.get("function", {})
    if fn.get("name") != "calc":
        return f"error: unknown tool '{fn.get('name')}'"
    try:
        args = json.loads(fn.get("arguments") or "")
    except ValueError:
        return "error: arguments are not valid JSON"
    if not isinstance(args, dict) or not isinstance(args.get("expression"), str):
        return 'error: arguments must be {"expression": "<text>"}'
    return calc(args["expression"])


def final_answer(content: Any) -> Any:
    lines = [line.strip() for line in str(content or "").split("\n") if line.strip()]
    m = ANSWER_LINE.match(lines[-1]) if lines else None
    return float(m.group(1)) if m else None


def play(ep: Any, task: Dict[str, Any]) -> Dict[str, Any]:
    messages: List[Dict[str, Any]] = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": task["question"]},
    ]
    turns, used_tool, last = 0, False, None
    while turns < MAX_TURNS:
        out = chat(ep.base_url, ep.api_key, messages, tools=[CALC_TOOL], model=ep.model)
        msg = out["choices"][0]["message"]
        turns += 1
        messages.append(msg)
        last = msg
        calls = msg.get("tool_calls") or []
        if not calls:
            break
        used_tool = True
        for tc in calls:
            messages.append(
                {"role": "tool", "tool_call_id": tc.get("id", ""), "name": "calc", "content": tool_reply(tc)}
            )
    answer = final_answer(last.get("content")) if last and not last.get("tool_calls") else None
    success = answer is not None and abs(answer - float(task["answer"])) < 1e-9
    return {
        "reward": 1.0 if success else 0.0,
        "success": success,
        "metrics": {
            "turns": float(turns),
            "used_tool": 1.0 if used_tool else 0.0,
            "answered": 0.0 if answer is None else 1.0,
        },
    }


def load_tasks(split: str = "train") -> List[Dict[str, Any]]:
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", f"{split}.jsonl")
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def play_logged(client: SwarmClient, task: Dict[str, Any]) -> None:
    """One episode of `task`, its outcome printed; a failure is printed and survived (the SDK aborted it)."""
    try:
        scored: Dict[str, Any] = {}
        end = client.episode(task["id"], lambda ep: scored.setdefault("r", play(ep, task)))
        print(f"{task['id']}: reward {scored['r']['reward']} pooled={end.get('pooled')}", flush=True)
    except Exception as e:  # keep playing
        print(f"{task['id']}: episode failed: {e!r}", flush=True)
        time.sleep(0.5)


def client_index(client_id: str) -> int:
    """The number a client id ends with (0 when none)."""
    m = re.search(r"(\d+)$", client_id)
    return int(m.group(1)) if m else 0


def paired_task_index(client_id: str, n: int, count: int) -> int:
    """The n-th task index in paired order (AGENTJET_PAIRED_TASKS=1): mirrors pairedTaskIndex in
    resources/examples/swarm-loop.ts, so clients of the same index play the same tasks in every framework."""
    stride = 1013 if count % 1009 == 0 else 1009
    return (client_index(client_id) * 7919 + n * stride) % count


class PairedSync:
    """Lock-step of paired order (AGENTJET_PAIRED_SYNC, AGENTJET_PAIRED_PEERS): mirrors
    resources/examples/paired-sync.ts — group n of a client index starts once every peer marked n − 1."""

    def __init__(self, folder: str, peers: int, timeout_s: float = 60.0) -> None:
        self.folder, self.peers, self.timeout_s = folder, peers, timeout_s

    @staticmethod
    def from_env() -> PairedSync | None:
        folder = os.environ.get("AGENTJET_PAIRED_SYNC", "")
        peers = int(os.environ.get("AGENTJET_PAIRED_PEERS", "0") or "0")
        return PairedSync(folder, peers) if folder and peers > 0 else None

    def _dir(self, client_id: str, n: int) -> str:
        return os.path.join(self.folder, str(client_index(client_id)), str(n))

    def mark_done(self, client_id: str, n: int) -> None:
        os.makedirs(self._dir(client_id, n), exist_ok=True)
        open(os.path.join(self._dir(client_id, n), client_id), "w").close()

    def await_peers(self, client_id: str, n: int) -> bool:
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                done = len(os.listdir(self._dir(client_id, n)))
            except FileNotFoundError:
                done = 0
            if done >= self.peers:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)


def main() -> None:
    client = SwarmClient.from_env()
    install_signal_handlers()
    tasks = load_tasks("train")
    rng = random.Random(client.client_id)
    limit = int(os.environ.get("AGENTJET_MAX_EPISODES", "0")) or None
    group = max(1, int(os.environ.get("AGENTJET_GROUP_SIZE", "1") or "1"))
    paired = os.environ.get("AGENTJET_PAIRED_TASKS") == "1"
    lockstep = PairedSync.from_env() if paired else None
    n = 0
    with ThreadPoolExecutor(max_workers=group) as pool:
        while limit is None or n < limit:
            if lockstep and n > 0 and not lockstep.await_peers(client.client_id, n // group - 1):
                print(f"paired lock-step: peers did not finish group {n // group - 1} in 60 s; going on", flush=True)
            task = tasks[paired_task_index(client.client_id, n // group, len(tasks))] if paired else rng.choice(tasks)
            k = group if limit is None else min(group, limit - n)
            n += k
            # the whole group at once; the next task when all of it has ended
            for f in [pool.submit(play_logged, client, task) for _ in range(k)]:
                f.result()
            if lockstep:
                lockstep.mark_done(client.client_id, (n - k) // group)


if __name__ == "__main__":
    main()
