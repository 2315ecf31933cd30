"""The engine methods that change the weights — `load`, `train_step`, `save`, `restore` — and run on
every rank; `Engine` (engine.py) inherits them and adds the serving methods, which run on rank 0.

Each method validates its params on rank 0 first (an invalid request never reaches the followers),
then, with several ranks, broadcasts the request (`distributed.RankGroup.broadcast`) and runs it
everywhere; the follower ranks call `run_collective` from their `distributed.follow` loop. `load`
plans before any weight is read (`memory_plan.py`): full fine-tune or LoRA, activation
checkpointing, a learning rate — or refuses with what would fit.
"""

from __future__ import annotations

import abc
import dataclasses
import gc
import logging
import os
import random
from typing import Any

import numpy as np
import torch
import torch.distributed
import transformers

from . import checkpoint
from . import params as P
from .distributed import RankGroup, exit_soon, rank_failed
from .errors import EngineError, not_loaded
from .loading import (
    LoadedModel,
    LoadOptions,
    LoraOptions,
    load_model,
    memory_budget,
    model_shape,
    parse_load_options,
    resolve_device,
    resolve_dtype,
)
from .memory_plan import DoesNotFit, Plan, PlanRequest, plan_training
from .rendering import Renderer
from .trainer import Trainer
from .training import parse_step
from .weight_sync import DTYPES

log = logging.getLogger("agentjet_engine")


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def set_threads(threads: int) -> None:
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)


def plan_load(options: LoadOptions, group: RankGroup) -> tuple[LoadOptions, Plan]:
    """The training plan for `options` on this machine, and the options with its LoRA choice filled in."""
    device = resolve_device(options.device, group.local_rank)
    compute = resolve_dtype(options.dtype, device)
    shape = model_shape(options.path)
    ranks_here = int(os.environ.get("LOCAL_WORLD_SIZE", group.world_size)) if device.type == "cpu" else 1
    budget = options.memory_budget_bytes or memory_budget(device, ranks_here)
    lora = options.lora
    request = PlanRequest(
        mode=options.mode,
        lora_r=lora.r if lora else None,
        lora_alpha=lora.alpha if lora else None,
        lora_targets=lora.target_modules if lora else None,
        checkpointing=options.activation_checkpointing,
        micro_batch_tokens=options.micro_batch_tokens,
        compute_bytes=2 if compute == torch.bfloat16 else 4,
        world_size=group.world_size,
        kl_reference=options.kl_coef > 0,
        inference_copy=options.inference_copy,
    )
    where = f"{device.type}{'' if device.index is None else f':{device.index}'}" + (
        f" per rank ({group.world_size} ranks)" if group.distributed else ""
    )
    try:
        plan = plan_training(shape, budget, request, where)
    except DoesNotFit as exc:
        raise EngineError("invalid_params", "does_not_fit", str(exc)) from exc
    if plan.mode == "lora" and lora is None:
        options = dataclasses.replace(options, lora=LoraOptions(r=plan.lora_r or 16, alpha=plan.lora_alpha or 32.0))
    return options, plan


class TrainingEngine(abc.ABC):
    """State shared with the serving side: `loaded` (what generation uses), `renderer`, `weight_version`."""

    def __init__(self, group: RankGroup | None = None) -> None:
        self.group = group or RankGroup()
        self.loaded: LoadedModel | None = None
        self.renderer: Renderer | None = None
        self.trainer: Trainer | None = None
        self.weight_version = 0
        self.role = "trainer"  # or "replica": a rollout replica (inference only, weights from the trainer)
        self.rank_pids = self.group.all_gather(os.getpid())

    # ---- hooks for the serving side ----------------------------------------------------------
    def _on_weights_changed(self) -> None:  # noqa: B027 (an optional hook, empty by default)
        """Called after every update, restore and load (e.g. to drop caches keyed by the weights)."""

    def training_info(self) -> dict[str, Any]:
        """Fields `info` adds for the training side: ranks, plan, and how steps run."""
        base: dict[str, Any] = {"worldSize": self.group.world_size, "rankPids": list(self.rank_pids)}
        if self.trainer is not None:
            base.update(self.trainer.features())
        return base

    def scoring_options(self) -> dict[str, Any]:
        """How `score_sequences` should run for this model (the tree path and head it supports)."""
        t = self.trainer
        return {
            "tree_attention": "segments" if t is None or t.segments_ok else "dense",
            "chunked": t is None or t.chunked_ok,
        }

    def _require(self) -> LoadedModel:
        if self.loaded is None:
            raise not_loaded()
        return self.loaded

    def _require_serving(self) -> LoadedModel:
        """The model generation and scoring run on; refused on FSDP rank 0 loaded without an inference copy."""
        m = self._require()
        if self.trainer is not None and not self.trainer.serves:
            raise EngineError(
                "state",
                "no_inference_copy",
                "this trainer keeps no inference copy (loaded with inferenceCopy: false, as when rollout replicas "
                "generate): generation and scoring run on the replicas",
            )
        return m

    def _require_trainer(self) -> Trainer:
        self._require()
        if self.trainer is None:
            raise EngineError("state", "replica", "a rollout replica does not train; its weights come from sync_pull")
        return self.trainer

    # ---- collective methods ------------------------------------------------------------------
    def _collective(self, method: str, payload: dict[str, Any]) -> Any:
        """Rank 0: hand `payload` to the followers, then run it here too."""
        if self.group.distributed:
            try:
                self.group.broadcast((method, payload))
            except Exception as exc:
                exit_soon()
                raise rank_failed(method, exc, self.group) from exc
        try:
            return self.run_collective(method, payload)
        except EngineError:
            raise
        except Exception as exc:
            if not self.group.distributed:
                raise
            log.exception("%s failed on rank 0", method)
            exit_soon()
            raise rank_failed(method, exc, self.group) from exc

    def run_collective(self, method: str, payload: dict[str, Any]) -> Any:
        """Every rank: the part of a collective method that runs on each of them."""
        if method == "load":
            return self._load_here(payload["options"], payload["plan"])
        if method == "train_step":
            return self._train_step_here(payload)
        if method == "save":
            return self._require_trainer().save(payload["path"], payload["tmp"], payload["meta"])
        if method == "sync_gather":
            return self._require_trainer().gather_trainable(DTYPES[int(payload["dtype"])])
        if method == "restore":
            meta = self._require_trainer().restore(payload["path"])
            self.weight_version = int(meta["weightVersion"])
            self._on_weights_changed()
            return meta
        raise EngineError("unknown_method", "unknown_method", f"unknown collective method {method!r}")

    def load(self, params: dict[str, Any]) -> dict[str, Any]:
        if P.get_str(params, "role", default="trainer", choices=("trainer", "replica")) == "replica":
            self._load_replica(parse_load_options(params))
            return self.info()
        options, plan = plan_load(parse_load_options(params), self.group)
        log.info("training plan: %s (lr %g) — %s", plan.mode, plan.lr, plan.reason)
        self._collective("load", {"options": options, "plan": plan})
        return self.info()

    def _load_here(self, options: LoadOptions, plan: Plan) -> None:
        self.unload()
        set_threads(options.threads)
        seed_everything(options.seed)
        loaded = load_model(options, self.group.local_rank)
        self.trainer = Trainer(loaded, plan, self.group)
        self.loaded = self.trainer.serving()
        self.renderer = Renderer(loaded.tokenizer)
        self.weight_version = 0
        self.role = "trainer"
        self._on_weights_changed()

    def _load_replica(self, options: LoadOptions) -> None:
        """A rollout replica: the model for inference only, stored in the serving dtype (bf16 on GPU, never
        an fp32 copy), no optimizer; its weights arrive from the trainer (engine_sync.py)."""
        if self.group.distributed:
            raise EngineError("invalid_params", "replica_ranks", "a rollout replica is a single process")
        self.unload()
        set_threads(options.threads)
        seed_everything(options.seed)
        loaded = load_model(options, self.group.local_rank)
        if loaded.compute_dtype != torch.float32:
            loaded.model.to(loaded.compute_dtype)
        self.loaded, self.renderer, self.role = loaded, Renderer(loaded.tokenizer), "replica"
        self.weight_version = 0
        self._on_weights_changed()

    def unload(self) -> None:
        self.loaded = self.renderer = self.trainer = None
        self.weight_version = 0
        gc.collect()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()

    def train_step(self, params: dict[str, Any]) -> dict[str, Any]:
        m = self._require()
        self._require_trainer()
        parse_step(params, m.vocab_size, m.context_length)  # validate before broadcasting
        return self._collective("train_step", {"samples": params.get("samples"), "hyper": params.get("hyper")})

    def _train_step_here(self, params: dict[str, Any]) -> dict[str, Any]:
        m = self._require()
        samples, hyper = parse_step(params, m.vocab_size, m.context_length)
        stats = self._require_trainer().train_step(samples, hyper)
        if not hyper.dry_run:
            self.weight_version += 1
            self._on_weights_changed()
        return {**stats, "weightVersion": self.weight_version}

    def save(self, params: dict[str, Any]) -> dict[str, Any]:
        m = self._require()
        self._require_trainer()
        path = P.get_str(params, "path")
        meta = {
            "weightVersion": self.weight_version,
            "load": m.options.to_json(),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
        }
        size = self._collective("save", {"path": path, "tmp": checkpoint.temp_path(path), "meta": meta})
        return {"path": path, "weightVersion": self.weight_version, "bytes": size}

    def restore(self, params: dict[str, Any]) -> dict[str, Any]:
        m = self._require()
        self._require_trainer()
        path = P.get_str(params, "path")
        meta = checkpoint.read_meta(path)
        saved_lora = (meta.get("load") or {}).get("lora")
        current_lora = m.options.to_json()["lora"]
        if saved_lora != current_lora:
            raise EngineError(
                "state",
                "checkpoint_mismatch",
                f"checkpoint was saved with lora={saved_lora}, but the model is loaded with lora={current_lora}",
            )
        self._collective("restore", {"path": path})
        return self.info()

    def close(self) -> None:
        """Rank 0 at the end of input: let the follower ranks leave their loop."""
        if self.group.distributed and self.group.leader:
            try:
                self.group.broadcast(("close", {}))
                self.group.leave()
            except Exception as exc:  # the followers are already gone
                log.info("closing: %s", exc)

    @abc.abstractmethod
    def info(self, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """The model's facts and the engine's state (Engine answers it; training returns it after a load)."""
