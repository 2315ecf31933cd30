"""The training side of a loaded engine: the optimizer, the policy-gradient step, the KL reference,
checkpoints — on one process, or data-parallel over FSDP2 ranks.

`Trainer` is what `Engine` delegates `train_step`, `save` and `restore` to; every rank holds one.
With one rank it trains the loaded model in place. With N ranks (`distributed.py`) the policy is
sharded with `fully_shard` (each decoder layer a unit, the `PolicyScorer` root holding embeddings,
final norm and the head), each rank runs its share of the step's micro-batches (padded with
zero-weight ones so every rank runs the same collectives), the loss is scaled so FSDP's averaged
reduce-scatter yields the same summed gradient as one process, and the stat sums are all-reduced.
Rank 0 keeps an unsharded *inference copy* — the model generation and `logprobs` run on — refreshed
from the shards after every update and restore (only the trainable tensors: all weights under full
fine-tuning, the adapter under LoRA); it costs rank 0 one more full copy of the weights. Loaded with
`inferenceCopy: false` (the worker does so when rollout replicas generate), rank 0 keeps none: it only
trains, and a weight sync gathers the full tensors from the shards in the wire dtype for the push
(`gather_trainable`, a collective), dropped once pushed; generation and scoring on it are refused.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import time
from typing import Any

import torch

from . import checkpoint
from .distributed import RankGroup
from .loading import LoadedModel, load_reference, set_activation_checkpointing
from .memory_plan import Plan
from .memprobe import PeakMemory, state_bytes
from .scoring import PolicyScorer, Targets, chunked_head_matches, score_targets, tree_segments_match
from .training import (
    Hyper,
    Sample,
    StepContext,
    accumulate_gradients,
    clip_and_step,
    loss_weight,
    micro_batches,
    step_stats,
)
from .trees import ModelInput

log = logging.getLogger("agentjet_engine")


def assign_batches(batches: list[list[int]], sizes: list[int], world: int) -> list[list[list[int]]]:
    """Micro-batches per rank, balanced by padded tokens (largest first onto the least loaded rank)."""
    load = [0] * world
    out: list[list[list[int]]] = [[] for _ in range(world)]
    for batch in sorted(batches, key=lambda b: -len(b) * max(sizes[i] for i in b)):
        rank = min(range(world), key=lambda r: (load[r], r))
        out[rank].append(batch)
        load[rank] += len(batch) * max(sizes[i] for i in batch)
    return out


def _idle_sample(pad_id: int) -> Sample:
    """A zero-weight micro-batch: the same forward/backward collectives as a real one, no gradient."""
    return Sample([pad_id, pad_id], [0, 1], [0.0, 0.0], [0.0, 0.0], weights=[0.0, 0.0])


def shard(scorer: PolicyScorer, device: torch.device) -> None:
    """FSDP2: each decoder layer its own unit, the scorer (embeddings, final norm, head) the root."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard

    mesh = init_device_mesh(device.type, (torch.distributed.get_world_size(),))
    for layer in scorer.lm.get_decoder().layers:
        fully_shard(layer, mesh=mesh)
    fully_shard(scorer, mesh=mesh)


class Trainer:
    def __init__(self, loaded: LoadedModel, plan: Plan, group: RankGroup) -> None:
        self.loaded, self.plan, self.group = loaded, plan, group
        lm = loaded.model
        tolerance = 1e-4 if loaded.compute_dtype == torch.float32 else 5e-2
        self.segments_ok = tree_segments_match(lm, loaded.autocast(), tolerance, loaded.compute_dtype)
        self.chunked_ok = chunked_head_matches(lm, loaded.autocast(), tolerance)
        if not self.segments_ok:
            log.warning("this model does not take the segment tree attention; tree samples use the dense mask")
        if not self.chunked_ok:
            log.warning("this model's logits are not a plain head over its decoder; scoring uses full logits")
        set_activation_checkpointing(lm, plan.checkpointing)
        self.scorer = PolicyScorer(lm)
        self.inference: Any = None
        if group.distributed:
            if group.leader and loaded.options.inference_copy:
                self.inference = copy.deepcopy(lm).eval()  # (requires_grad kept: info counts it)
            shard(self.scorer, loaded.device)
        self.params = [p for p in self.scorer.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(self.params, lr=0.0, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0)
        self.reference: Any = None  # frozen load-time scorer for the KL term (full fine-tune), made on first use

    # ---- what serving sees -------------------------------------------------------------------
    def serving(self) -> LoadedModel:
        """The LoadedModel generation and scoring use: the model itself, or rank 0's inference copy."""
        if self.inference is None:
            return self.loaded
        return dataclasses.replace(self.loaded, model=self.inference)

    @property
    def serves(self) -> bool:
        """Whether generation and scoring can run here (not on FSDP rank 0 without an inference copy)."""
        return not self.group.distributed or self.inference is not None

    def inference_copy_bytes(self) -> int:
        if self.inference is None:
            return 0
        return sum(p.numel() * p.element_size() for p in self.inference.parameters())

    def gather_trainable(self, wire: torch.dtype) -> list[tuple[str, torch.Tensor]]:
        """Every rank (a collective): each trainable tensor in full, in the wire dtype, in a fixed order; rank 0
        keeps them for a weight sync push, the others drop each at once."""
        out: list[tuple[str, torch.Tensor]] = []
        with torch.no_grad():
            for name, p in self.scorer.lm.named_parameters():
                if not p.requires_grad:
                    continue
                full = (p.full_tensor() if hasattr(p, "full_tensor") else p).to(wire)
                if self.group.leader:
                    out.append((name, full))
        return out

    def features(self) -> dict[str, Any]:
        return {
            "inferenceCopyBytes": self.inference_copy_bytes(),
            "treeAttention": "segments" if self.segments_ok else "dense",
            "chunkedLogprobs": self.chunked_ok,
            "activationCheckpointing": self.plan.checkpointing,
            "worldSize": self.group.world_size,
            "plan": self.plan.to_json(),
        }

    # ---- the step ----------------------------------------------------------------------------
    def _context(self, hyper: Hyper) -> StepContext:
        m = self.loaded
        tree = hyper.tree_attention
        if tree == "auto" or (tree == "segments" and not self.segments_ok):
            tree = "segments" if self.segments_ok else "dense"
        return StepContext(
            pad_id=m.pad_id,
            device=m.device,
            autocast=m.autocast,
            mask_dtype=m.compute_dtype,
            tree_attention=tree,
            chunked=hyper.chunked_logprobs and self.chunked_ok,
            reference=self._reference_logprobs if hyper.kl_coef > 0 else None,
        )

    def _reference_logprobs(self, inp: ModelInput, targets: Targets) -> torch.Tensor:
        """Logprobs under the load-time weights: the adapter switched off under LoRA, otherwise a
        frozen copy reloaded from the model folder the first time it is needed (sharded like the policy)."""
        m = self.loaded
        if m.options.lora is not None:
            with m.model.disable_adapter():
                return score_targets(self.scorer, inp, targets, m.autocast())[0]
        if self.reference is None:
            self.reference = PolicyScorer(load_reference(m))
            if self.group.distributed:
                shard(self.reference, m.device)
        return score_targets(self.reference, inp, targets, m.autocast())[0]

    def train_step(self, samples: list[Sample], hyper: Hyper) -> dict[str, Any]:
        """One optimizer step over every rank (see the module docstring); identical stats on all ranks."""
        started = time.perf_counter()
        m, group = self.loaded, self.group
        ckpt = self.plan.checkpointing if hyper.activation_checkpointing is None else hyper.activation_checkpointing
        set_activation_checkpointing(m.model, ckpt)
        ctx = self._context(hyper)
        try:
            with PeakMemory(m.device) as peak:
                self.optimizer.zero_grad(set_to_none=True)
                batches = micro_batches(samples, hyper.micro_batch_tokens)
                total = loss_weight(samples)
                if group.distributed:
                    share = assign_batches(batches, [len(s.token_ids) for s in samples], group.world_size)
                    mine = share[group.rank]
                    idle = max(len(s) for s in share) - len(mine)
                    work = samples + [_idle_sample(m.pad_id)]
                    mine = mine + [[len(samples)]] * idle
                    # FSDP averages the gradient over ranks: scale each rank's loss up to keep the sum.
                    sums = accumulate_gradients(self.scorer, work, hyper, ctx, mine, total / group.world_size)
                    sums["micro_batches"] -= idle
                else:
                    sums = accumulate_gradients(self.scorer, samples, hyper, ctx, batches, total)
                grad_norm = clip_and_step(
                    self.optimizer, self.params, hyper, lambda x: group.sum_floats({"squares": x})["squares"]
                )
        finally:
            set_activation_checkpointing(m.model, self.plan.checkpointing)
        sums = group.sum_floats(sums)
        if group.distributed and not hyper.dry_run:
            self.refresh_inference_copy()
        stats = step_stats(sums, samples, hyper, grad_norm, time.perf_counter() - started)
        memory = {**state_bytes(self.scorer, self.optimizer), "peakBytes": peak.peak, "beforeBytes": peak.before}
        ranks = group.all_gather(memory)
        return {
            **stats,
            "activationCheckpointing": ckpt,
            "treeAttention": ctx.tree_attention,
            "chunkedLogprobs": ctx.chunked,
            "worldSize": group.world_size,
            "peakMemoryBytes": memory["peakBytes"],
            "rankMemory": ranks,
        }

    def refresh_inference_copy(self) -> None:
        """Every rank: gather each trainable tensor in full (one at a time); rank 0 copies it into the
        inference copy by name."""
        if not self.loaded.options.inference_copy:
            return  # (the same on every rank: the load options are rank 0's)
        target = dict(self.inference.named_parameters()) if self.inference is not None else {}
        with torch.no_grad():
            for name, p in self.scorer.lm.named_parameters():
                if not p.requires_grad:
                    continue
                full = p.full_tensor() if hasattr(p, "full_tensor") else p
                if name in target:
                    target[name].copy_(full)

    # ---- checkpoints -------------------------------------------------------------------------
    def save(self, path: str, tmp: str, meta: dict[str, Any]) -> int:
        return checkpoint.save(path, tmp, self.scorer.lm, self.optimizer, meta, self.group)

    def restore(self, path: str) -> dict[str, Any]:
        meta = checkpoint.restore(path, self.scorer.lm, self.optimizer, self.group)
        if self.group.distributed:
            self.refresh_inference_copy()
        return meta
