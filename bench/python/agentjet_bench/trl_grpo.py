"""The `trl` benchmark's reference arm: the same calculator-agent episode trained by Hugging Face TRL's GRPOTrainer.

The same warm-started model folder, train split, system prompt, `calc` tool (its schema rendered byte for byte as
the worker renders it), at most 4 model turns and verifiable reward (1 when the final answer line is `#### N` with
the task's answer), all taken from the calculator agent's Python client (resources/examples/calculator-agent/
client.py); sampled at temperature 1, 8 tasks x 8 episodes per update, fully on-policy (one update per generation
batch), the learning rate decaying linearly over the budget as the worker's arm does. TRL runs its own rollouts
(transformers' `generate`, its tool-calling loop) on this process's threads. Training stops after `--minutes` of
wall time (model loading excluded); the weights are saved at every `--save-every` minutes into `<out>/at-<minutes>/`
and at the end into `<out>/at-end/`, each a model folder the worker loads (the TypeScript side evaluates them on the
held-out split, as it evaluates its own arm). Writes `<out>/result.json` (updates, episodes, seconds, the
checkpoints) and prints it as its last line.

    python -m agentjet_bench.trl_grpo --model DIR --out DIR [--minutes 10] [--save-every 5]
        [--lr 3.5e-4] [--lr-end 1e-4] [--batch 8] [--group 8] [--seed 1] [--threads 2] [--max-steps N]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import shutil
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
CLIENT_PY = ROOT / "resources" / "examples" / "calculator-agent" / "client.py"


def _calculator_client() -> ModuleType:
    """The calculator agent's Python client: its prompt, tool, turn limit, tool replies and answer parsing."""
    spec = importlib.util.spec_from_file_location("calculator_agent_client", CLIENT_PY)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {CLIENT_PY}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CLIENT = _calculator_client()


def calc(expression: str) -> str:
    """Evaluate an arithmetic expression.

    Args:
        expression: The arithmetic expression.
    """
    return str(CLIENT.calc(expression)) if isinstance(expression, str) else "error: invalid expression"


def episode_success(completion: list[dict[str, Any]], answer: float) -> bool:
    """calcScore: the last assistant turn calls no tool and its answer line is the task's answer."""
    turns = [m for m in completion if m.get("role") == "assistant"]
    if not turns or turns[-1].get("tool_calls"):
        return False
    got = CLIENT.final_answer(turns[-1].get("content"))
    return got is not None and abs(got - answer) < 1e-9


def calc_reward(completions: list[list[dict[str, Any]]], answer: list[float], **_: Any) -> list[float]:
    return [1.0 if episode_success(c, a) else 0.0 for c, a in zip(completions, answer, strict=True)]


def prompts(tasks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The dataset TRL samples from: each train task's opening messages and its answer (for the reward)."""
    return [
        {
            "prompt": [{"role": "system", "content": CLIENT.SYSTEM_PROMPT}, {"role": "user", "content": t["question"]}],
            "answer": float(t["answer"]),
        }
        for t in tasks
    ]


def lr_at(minutes: float, budget: float, lr: float, lr_end: float) -> float:
    """The worker arm's schedule: linear from lr to lr_end over the budget, then lr_end."""
    return lr + (lr_end - lr) * min(1.0, minutes / budget)


def save_checkpoint(model: Any, model_dir: Path, dest: Path) -> None:
    """A model folder the worker loads: the weights, and the warm start's tokenizer and chat template files."""
    dest.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(dest, safe_serialization=True)
    for name in ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "generation_config.json"):
        if (model_dir / name).exists():
            shutil.copy(model_dir / name, dest / name)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="agentjet_bench.trl_grpo")
    p.add_argument("--model", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--minutes", type=float, default=10.0)
    p.add_argument("--save-every", type=float, default=5.0)
    p.add_argument("--lr", type=float, default=3.5e-4)
    p.add_argument("--lr-end", type=float, default=1e-4)
    p.add_argument("--batch", type=int, default=8, help="tasks per update")
    p.add_argument("--group", type=int, default=8, help="episodes per task")
    p.add_argument("--max-completion", type=int, default=256, help="tokens of one episode's completion")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--max-steps", type=int, default=0, help="stop after this many updates too (0: time only)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    import torch
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer
    from trl.chat_template_utils import qwen3_template

    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    tokenizer = AutoTokenizer.from_pretrained(a.model)
    # The warm start's template is Qwen2.5's Hermes format; TRL reads tool calls back with the response template
    # of the Qwen family (`<tool_call>` JSON blocks, `<|im_end|>`), which is that format.
    tokenizer.response_template = qwen3_template
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(a.model, dtype=torch.float32)
    dataset = Dataset.from_list(prompts(CLIENT.load_tasks("train"))).shuffle(seed=a.seed)
    args = GRPOConfig(
        output_dir=str(a.out / "trl"),
        per_device_train_batch_size=a.batch * a.group,
        num_generations=a.group,
        gradient_accumulation_steps=1,
        steps_per_generation=1,
        num_iterations=1,
        learning_rate=a.lr,
        lr_scheduler_type="constant",
        max_steps=a.max_steps if a.max_steps > 0 else 1_000_000,
        max_completion_length=a.max_completion,
        max_tool_calling_iterations=CLIENT.MAX_TURNS - 1,
        temperature=1.0,
        beta=0.0,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        use_cpu=True,
        seed=a.seed,
        data_seed=a.seed,
        remove_unused_columns=False,
        disable_tqdm=True,
    )

    budget_s = a.minutes * 60.0
    marks = _grid(a.save_every, a.minutes)
    state: dict[str, Any] = {"t0": None, "saved": [], "rewards": []}

    class Budget(TrainerCallback):  # type: ignore[misc]
        """Holds the learning-rate schedule and the wall-clock budget; saves the weights on the minutes grid."""

        def on_train_begin(self, _args: Any, _state: Any, _control: Any, **_: Any) -> None:
            state["t0"] = time.monotonic()

        def on_step_begin(self, _args: Any, _state: Any, _control: Any, **kw: Any) -> None:
            minutes = (time.monotonic() - state["t0"]) / 60.0
            for group in kw["optimizer"].param_groups:
                group["lr"] = lr_at(minutes, a.minutes, a.lr, a.lr_end)

        def on_log(self, _args: Any, _state: Any, _control: Any, logs: dict[str, Any] | None = None, **_: Any) -> None:
            if logs and "reward" in logs:
                state["rewards"].append(float(logs["reward"]))

        def on_step_end(self, _args: Any, st: Any, control: Any, **kw: Any) -> None:
            elapsed = time.monotonic() - state["t0"]
            while marks and elapsed >= marks[0] * 60.0:
                mark = marks.pop(0)
                pause = time.monotonic()
                folder = f"at-{mark:g}"
                save_checkpoint(kw["model"], a.model, a.out / folder)
                state["saved"].append(
                    {"minutes": round(elapsed / 60.0, 3), "grid": mark, "step": st.global_step, "dir": folder}
                )
                state["t0"] += time.monotonic() - pause  # saving is not training time
            if elapsed >= budget_s:
                control.should_training_stop = True

    trainer = GRPOTrainer(
        model=model,
        reward_funcs=calc_reward,
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
        tools=[calc],
        callbacks=[Budget()],
    )
    # The prompt lists the tool as the worker renders it (the function's generated schema would add an argument
    # description, a different prompt from the one the warm start learned and the evaluation uses).
    trainer.tools = [CLIENT.CALC_TOOL]
    trainer.train()
    elapsed = time.monotonic() - state["t0"]
    steps = trainer.state.global_step
    last = a.out / "at-end"
    save_checkpoint(trainer.model, a.model, last)
    result = {
        "updates": steps,
        "episodes": steps * a.batch * a.group,
        "seconds": round(elapsed, 1),
        "step_s": round(elapsed / max(1, steps), 3),
        "checkpoints": [
            *state["saved"],
            {"minutes": round(elapsed / 60.0, 3), "grid": a.minutes, "step": steps, "dir": last.name},
        ],
        "train_reward_first": state["rewards"][0] if state["rewards"] else None,
        "train_reward_last": state["rewards"][-1] if state["rewards"] else None,
        "trl": __import__("trl").__version__,
    }
    (a.out / "result.json").write_text(json.dumps(result) + "\n")
    print(json.dumps(result), flush=True)
    return 0


def _grid(every: float, minutes: float) -> list[float]:
    if every <= 0:
        return []
    n = math.floor(minutes / every - 1e-9)
    return [round(every * k, 6) for k in range(1, n + 1)]


if __name__ == "__main__":
    raise SystemExit(main())
