"""The continuous batcher: one decode loop that admits sequences at any step and releases each the
step it finishes, with chunked prefill under a per-step token budget and prefix KV reuse.

One `step()` is one model forward over a flat token list: the next token of every decoding row,
then prefill chunks of admitted rows (oldest first) up to `prefill_tokens`. A row whose prompt
completes in the step samples its first token and joins the decoding rows; a row that samples a
stop id, completes a stop string, reaches its max tokens or is cancelled leaves at once (no pad
is ever fed). Keys/values live in the slot store (`kv_store.py`), attention is `attention.py`'s,
prompts reuse cached prefixes (`prefix_cache.py`) and every prompt's and finished sequence's whole
blocks are cached for the next turn / the other rollouts of a group (a row whose next uncached
block is being prefilled by another row waits a step for it instead of computing it again).

Sampling: one CPU `torch.Generator` per sequence, seeded by its request, drawing one uniform per
sampled token, and `sample_tokens` (no vocabulary sort unless top-p < 1): a sequence's tokens for
a seed do not depend on what else is in the batch. Reported logprobs are raw (temperature 1).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import torch
from torch import Tensor

from .admission_policy import RowLimits, takes_row
from .attention import serving_attention
from .detok import TextTracker
from .forced import force_tokens, used_up
from .generation import GenerationRequest
from .kv_store import Segment, SlotCache, SlotStore, StepPlan
from .losses import gather_logprobs
from .prefix_cache import PrefixCache
from .sampling import sample_tokens


@dataclass
class ServingConfig:
    max_rows: int = 64  # sequences decoded together
    prefill_tokens: int = 512  # prompt tokens computed per step (bounds a decode step's stall)
    kv_bytes: int = 1 << 30  # slot store budget (admission stops above it)
    prefix_bytes: int = 512 << 20  # prefix cache budget
    block_tokens: int = 16  # prefix cache block size
    short_rows: int = 8  # rows kept above max_rows for short calls (admission_policy.py); 0: none
    short_tokens: int = 16  # a call asking for at most this many new tokens is short

    @property
    def rows(self) -> RowLimits:
        return RowLimits(self.max_rows, self.short_rows, self.short_tokens)


class JobSink(Protocol):
    """Where a generate request's output goes (the server's response writer, or a test)."""

    def delta(self, index: int, token_ids: list[int], logprobs: list[float], text: str) -> None: ...
    def done(self, results: list[dict[str, Any]]) -> None: ...
    def fail(self, error: Exception) -> None: ...


class Job:
    """One `generate` frame: several sequences answered together."""

    def __init__(self, requests: list[GenerationRequest], sink: JobSink, stream: bool) -> None:
        self.sink = sink
        self.stream = stream
        self.results: list[dict[str, Any] | None] = [None] * len(requests)
        self.left = len(requests)
        self.cancelled = False
        self.failed = False
        self.submitted = time.perf_counter()

    def complete(self, index: int, result: dict[str, Any]) -> None:
        self.results[index] = result
        self.left -= 1
        if self.left == 0 and not self.failed:
            self.sink.done([r for r in self.results if r is not None])


@dataclass
class Row:
    job: Job
    index: int
    req: GenerationRequest
    tracker: TextTracker
    generator: torch.Generator
    slot: int = -1
    length: int = 0  # positions with keys/values in the slot
    reused: int = 0  # prompt tokens copied from the prefix cache
    pending: int | None = None  # sampled, not yet fed
    out_ids: list[int] = field(default_factory=list)
    out_lps: list[float] = field(default_factory=list)
    new_ids: list[int] = field(default_factory=list)  # since the last delta
    new_lps: list[float] = field(default_factory=list)
    finish: str | None = None
    admitted_at: float = 0.0
    first_token_at: float = 0.0
    versions: list[list[int]] = field(default_factory=list)  # [token index, weight version] at each swap

    @property
    def prompt(self) -> list[int]:
        return self.req.prompt_ids


@dataclass
class BatchStats:
    steps: int = 0
    decode_tokens: int = 0  # tokens sampled by decoding rows
    prefill_tokens: int = 0  # prompt tokens computed
    forward_seconds: float = 0.0
    sequences: int = 0  # finished sequences
    max_rows: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "steps": self.steps,
            "decodeTokens": self.decode_tokens,
            "prefillTokens": self.prefill_tokens,
            "meanDecodeBatch": self.decode_tokens / self.steps if self.steps else 0.0,
            "forwardSeconds": round(self.forward_seconds, 3),
            "sequences": self.sequences,
            "maxRows": self.max_rows,
        }


class ServingModel(Protocol):
    model: Any
    device: torch.device
    pad_id: int

    def autocast(self) -> contextlib.AbstractContextManager[Any]: ...


def model_dims(model: Any) -> tuple[int, int, int, list[str]]:
    config = model.config.get_text_config() if hasattr(model.config, "get_text_config") else model.config
    heads = config.num_attention_heads
    kv_heads = getattr(config, "num_key_value_heads", None) or heads
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // heads
    layer_types = list(getattr(config, "layer_types", None) or ["full_attention"] * config.num_hidden_layers)
    return config.num_hidden_layers, kv_heads, head_dim, layer_types


class ContinuousBatcher:
    def __init__(
        self,
        served: ServingModel,
        decode: Callable[[list[int]], str],
        config: ServingConfig,
        dtype: torch.dtype,
        context: int | None = None,
    ) -> None:
        self.served = served
        self.decode = decode
        self.config = config
        self.context = context  # the model's context length: no row grows past it
        layers, kv_heads, head_dim, layer_types = model_dims(served.model)
        self.mask_types = sorted(set(layer_types))
        self.store = SlotStore(layers, kv_heads, head_dim, dtype, served.device)
        self.cache = SlotCache(layers)
        self.prefix = PrefixCache(self.store, config.prefix_bytes, config.block_tokens)
        self.waiting: list[Row] = []
        self.slots: list[Row] = []  # [decoding | prefilling], index = slot
        self.decoding = 0
        self._rows_hint = 0
        self.stats = BatchStats()

    # ---- requests --------------------------------------------------------------------------------
    def submit(self, requests: list[GenerationRequest], sink: JobSink, stream: bool = False) -> Job:
        job = Job(requests, sink, stream)
        for i, req in enumerate(requests):
            if req.max_tokens <= 0:
                job.complete(
                    i,
                    {
                        "tokenIds": [],
                        "logprobs": [],
                        "finishReason": "length",
                        "text": "",
                        "promptTokens": len(req.prompt_ids),
                        "cachedTokens": 0,
                    },
                )
                continue
            row = Row(job, i, req, TextTracker(self.decode, req.stop), torch.Generator().manual_seed(req.seed))
            self.waiting.append(row)
        return job

    def cancel(self, job: Job) -> None:
        """Drops the job's sequences at once (their slots are freed) and fails it as cancelled."""
        job.cancelled = True
        self.waiting = [r for r in self.waiting if r.job is not job]
        for row in [r for r in self.slots if r.job is job]:
            self._release(row)

    @property
    def busy(self) -> bool:
        return bool(self.waiting or self.slots)

    @property
    def active(self) -> int:
        return len(self.slots)

    def drop_cache(self) -> None:
        self.prefix.clear()

    def fail_all(self, error: Exception) -> None:
        jobs = {id(r.job): r.job for r in [*self.waiting, *self.slots]}
        self.waiting, self.slots, self.decoding = [], [], 0
        self.store.release()
        for job in jobs.values():
            if not job.failed:
                job.failed = True
                job.sink.fail(error)

    def to_json(self) -> dict[str, Any]:
        return {
            "active": len(self.slots),
            "decoding": self.decoding,
            "waiting": len(self.waiting),
            "kvBytes": self.store.bytes,
            "kvBudgetBytes": self.config.kv_bytes,
            **self.stats.to_json(),
        }

    # ---- the loop --------------------------------------------------------------------------------
    def step(self) -> None:
        """Admit, run one forward, sample, finish; sends deltas and results through the sinks."""
        if not self.slots and not self.waiting:
            return
        self._admit()
        if not self.slots:
            return
        plan, tokens, positions, logit_rows, logit_index = self._plan()
        t0 = time.perf_counter()
        logits = self._forward(plan, tokens, positions, logit_index)
        self.stats.forward_seconds += time.perf_counter() - t0
        self.stats.steps += 1
        self.stats.max_rows = max(self.stats.max_rows, len(self.slots))
        self._advance(plan)
        self._sample(logits, logit_rows)
        self._flush()
        if not self.slots and not self.waiting:
            self.store.release()

    # ---- admission -------------------------------------------------------------------------------
    def _row_bytes(self, tokens: int) -> int:
        return tokens * self.store.bytes_per_token

    def _deferred(self, row: Row, cached: int) -> bool:
        """True when a prefilling row is about to compute (and cache) `row`'s next uncached block."""
        upto = cached + self.prefix.block
        if len(row.prompt) - 1 < upto or self.prefix.max_blocks == 0:
            return False
        head = row.prompt[:upto]
        return any(
            len(q.prompt) >= upto and q.prompt[:upto] == head for q in self.slots[self.decoding :] if q.length < upto
        )

    def _admit(self) -> None:
        keep: list[Row] = []
        # room for every row that may be admitted now, so the store grows once, not once per row
        self._rows_hint = min(self.config.rows.total, len(self.slots) + len(self.waiting))
        for row in self.waiting:
            if row.job.cancelled:
                continue
            if not takes_row(len(self.slots), row.req.max_tokens, self.config.rows):
                keep.append(row)
                continue
            need_tokens = max(self.store.tokens, len(row.prompt) + 1)
            rows = len(self.slots) + 1
            if self.slots and rows * self._row_bytes(need_tokens) > self.config.kv_bytes:
                keep.append(row)
                continue
            cached = len(self.prefix.match(row.prompt, len(row.prompt) - 1)) * self.prefix.block
            if self._deferred(row, cached):
                keep.append(row)
                continue
            self._place(row)
        self.waiting = keep

    def _ensure(self, rows: int, tokens: int) -> None:
        """Grows the slot store within the row cap and the KV budget (and the model's context)."""
        per_row = max(1, max(tokens, self.store.tokens) * self.store.bytes_per_token)
        row_limit = max(1, min(self.config.rows.total, self.config.kv_bytes // per_row))
        self.store.ensure(
            rows, tokens, len(self.slots), self.store.tokens, row_limit=row_limit, token_limit=self.context
        )

    def _place(self, row: Row) -> None:
        slot = len(self.slots)
        self._ensure(max(slot + 1, self._rows_hint), len(row.prompt) + 1)
        row.slot = slot
        row.reused = self.prefix.lookup(row.prompt, len(row.prompt) - 1, slot)
        row.length = row.reused
        row.admitted_at = time.perf_counter()
        self.slots.append(row)

    # ---- one forward -----------------------------------------------------------------------------
    def _plan(self) -> tuple[StepPlan, list[int], list[int], list[Row], list[int]]:
        d = self.decoding
        tokens: list[int] = []
        positions: list[int] = []
        logit_rows: list[Row] = []
        for row in self.slots[:d]:
            assert row.pending is not None
            tokens.append(row.pending)
            positions.append(row.length)
            logit_rows.append(row)
        logit_index = list(range(d))
        segments: list[Segment] = []
        budget = self.config.prefill_tokens
        for row in self.slots[d:]:
            if budget <= 0:
                break
            count = min(len(row.prompt) - row.length, budget)
            segments.append(Segment(row.slot, row.length, count, len(tokens)))
            tokens.extend(row.prompt[row.length : row.length + count])
            positions.extend(range(row.length, row.length + count))
            budget -= count
            if row.length + count == len(row.prompt):
                logit_rows.append(row)
                logit_index.append(len(tokens) - 1)
        device = self.served.device
        lens = torch.tensor(positions[:d], dtype=torch.long, device=device) if d else None
        decode_kv = max(positions[:d]) + 1 if d else 0
        need = max([decode_kv] + [s.start + s.count for s in segments])
        self._ensure(len(self.slots), need)
        plan = StepPlan(self.store, d, lens, decode_kv, segments)
        return plan, tokens, positions, logit_rows, logit_index

    def _forward(self, plan: StepPlan, tokens: list[int], positions: list[int], logit_index: list[int]) -> Tensor:
        device = self.served.device
        model = self.served.model
        self.cache.plan = plan
        ids = torch.tensor([tokens], dtype=torch.long, device=device)
        pos = torch.tensor([positions], dtype=torch.long, device=device)
        keep = torch.tensor(logit_index, dtype=torch.long, device=device)
        masks: dict[str, Any] = {t: None for t in self.mask_types}
        with torch.inference_mode(), serving_attention(model), self.served.autocast():
            out = model(
                input_ids=ids,
                position_ids=pos,
                attention_mask=masks,
                past_key_values=self.cache,
                use_cache=True,
                logits_to_keep=keep,
                agentjet_plan=plan,
            )
        self.cache.plan = None
        return out.logits[0].float()

    def _advance(self, plan: StepPlan) -> None:
        for row in self.slots[: plan.decode]:
            row.length += 1
            row.pending = None
        for seg in plan.segments:
            row = self.slots[seg.slot]
            row.length += seg.count
            self.stats.prefill_tokens += seg.count
            self.prefix.stats.prefilled_tokens += seg.count
            self.prefix.insert(row.prompt, row.length, row.slot)

    # ---- sampling and finishing ------------------------------------------------------------------
    def _sample(self, logits: Tensor, rows: list[Row]) -> None:
        if not rows:
            return
        device = logits.device
        temperature = torch.tensor([r.req.temperature for r in rows], dtype=torch.float32, device=device)
        top_p = torch.tensor([r.req.top_p for r in rows], dtype=torch.float32, device=device)
        uniforms = torch.tensor(
            [float(torch.rand((), generator=r.generator)) if r.req.temperature > 0 else 0.0 for r in rows],
            dtype=torch.float32,
        ).to(device)
        chosen = sample_tokens(logits, temperature, top_p, uniforms)
        if any(r.req.forced for r in rows):
            chosen = force_tokens(chosen, [(r.req.forced, len(r.out_ids)) for r in rows])
        lps = gather_logprobs(logits, chosen).tolist()
        now = time.perf_counter()
        for row, token, lp in zip(rows, chosen.tolist(), lps):
            if not row.out_ids:
                row.first_token_at = now
            else:
                self.stats.decode_tokens += 1
            row.out_ids.append(token)
            row.out_lps.append(lp)
            row.new_ids.append(token)
            row.new_lps.append(lp)
            row.pending = token
            if row.job.stream or row.tracker.stops:
                row.tracker.push(token)
            if token in row.req.stop_ids or row.tracker.stopped:
                row.finish = "stop"
            elif len(row.out_ids) >= row.req.max_tokens or used_up(row.req.forced, len(row.out_ids)):
                row.finish = "length"
        for row in rows:
            if row.slot >= self.decoding:  # prompt completed this step: join the decoding rows
                self._promote(row)
        for row in rows:
            if row.finish is not None:
                self._finish(row)

    def _promote(self, row: Row) -> None:
        d = self.decoding
        if row.slot != d:
            other = self.slots[d]
            self.store.swap(row.slot, row.length, d, other.length)
            self.slots[row.slot], self.slots[d] = other, row
            other.slot, row.slot = row.slot, d
        self.decoding += 1

    def _finish(self, row: Row) -> None:
        sequence = row.prompt + row.out_ids
        self.prefix.insert(sequence, row.length, row.slot)
        self._release(row)
        self.stats.sequences += 1
        delta, text = row.tracker.finish() if (row.job.stream or row.tracker.stops) else ("", self.decode(row.out_ids))
        if row.job.stream and (row.new_ids or delta):
            row.job.sink.delta(row.index, row.new_ids, row.new_lps, delta)
        row.new_ids, row.new_lps = [], []
        row.job.complete(
            row.index,
            {
                "tokenIds": row.out_ids,
                "logprobs": row.out_lps,
                "finishReason": row.finish,
                "text": text,
                "promptTokens": len(row.prompt),
                "cachedTokens": row.reused,
                **({"versionSpans": row.versions} if row.versions else {}),
            },
        )

    def _relocate(self, src: int, dst: int) -> None:
        if src == dst:
            return
        moved = self.slots[src]
        self.store.move(src, dst, moved.length)
        self.slots[dst] = moved
        moved.slot = dst

    def _release(self, row: Row) -> None:
        s = row.slot
        if s < 0:
            return
        if s < self.decoding:
            last = self.decoding - 1
            self._relocate(last, s)
            self.decoding -= 1
            s = last
        self._relocate(len(self.slots) - 1, s)
        self.slots.pop()
        row.slot = -1

    def _flush(self) -> None:
        for row in self.slots:
            if row.job.stream and row.new_ids:
                row.job.sink.delta(row.index, row.new_ids, row.new_lps, row.tracker.visible())
                row.new_ids, row.new_lps = [], []
            elif row.new_ids:
                row.new_ids, row.new_lps = [], []
