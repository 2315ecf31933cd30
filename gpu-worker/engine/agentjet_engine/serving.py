"""The engine's generation side: the continuous batcher over the loaded model (made on first use
after each `load`), its settings (`configure`), statistics, and the rule that every weight change
drops the prefix KV cache.

One path per model: the continuous batcher serves every model it reproduces. A model it cannot
(attention it does not drive, or logits that differ from the model's own forward in the self-check
run on load) is served by the static path (`generation.py`) instead, which honours every sampling
parameter — stop strings included — with the same results for a seed; the engine logs why, and
`info.serving` reports it (`continuous: false`, `fallback`), as does the worker's status.

Seam for other engine code: `weights_changed()` must follow anything that changes the weights
(the server calls it after `train_step`, `restore`, `load`); `inference_model()` is the model
generation runs on (an FSDP engine can return its full inference copy there).
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from . import params as P
from .attention import unsupported_reason
from .errors import EngineError
from .generation import GenerationRequest, generate
from .scheduler import ContinuousBatcher, Job, ServingConfig

if TYPE_CHECKING:
    from .engine import Engine

log = logging.getLogger("agentjet_engine")


def default_config(device: torch.device) -> ServingConfig:
    if device.type == "cuda":
        free, _ = torch.cuda.mem_get_info(device)
        return ServingConfig(max_rows=256, prefill_tokens=4096, kv_bytes=int(free * 0.45), prefix_bytes=int(free * 0.2))
    return ServingConfig()


@dataclass
class _Served:
    """What the batcher needs of the loaded model."""

    model: Any
    device: torch.device
    pad_id: int
    _autocast: Any

    def autocast(self) -> contextlib.AbstractContextManager[Any]:
        return self._autocast()


class _Collect:
    """A JobSink that keeps the results (synchronous `generate`)."""

    def __init__(self) -> None:
        self.results: list[dict[str, Any]] | None = None
        self.error: Exception | None = None

    def delta(self, index: int, token_ids: list[int], logprobs: list[float], text: str) -> None:
        pass

    def done(self, results: list[dict[str, Any]]) -> None:
        self.results = results

    def fail(self, error: Exception) -> None:
        self.error = error


class Serving:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.overrides: dict[str, int] = {}
        self._batcher: ContinuousBatcher | None = None
        self._for: Any = None  # the LoadedModel the batcher was made for
        self.fallback: str | None = None  # why the continuous path cannot serve this model

    # ---- the batcher ---------------------------------------------------------------------------
    def inference_model(self) -> Any:
        return self.engine._require().model

    @property
    def batcher(self) -> ContinuousBatcher:
        m = self.engine._require()
        if self._batcher is None or self._for is not m:
            config = default_config(m.device)
            for key, value in self.overrides.items():
                setattr(config, key, value)
            model = self.inference_model()
            served = _Served(model, m.device, m.pad_id, m.autocast)
            self._batcher = ContinuousBatcher(
                served,
                m.decode_reply,
                config,
                m.compute_dtype,
                m.context_length,
            )
            self._for = m
            self.fallback = unsupported_reason(model) or self._self_check(m)
            if self.fallback is not None:
                log.warning(
                    "the continuous batcher cannot serve this model (%s): generations take the static path"
                    " (every sampling parameter kept; no prefix reuse, no streamed deltas, batches do not overlap)",
                    self.fallback,
                )
        return self._batcher

    def _self_check(self, m: Any) -> str | None:
        """Compares the continuous path's logits with the model's own forward on a short prompt, so a
        model whose attention the slot store does not reproduce is served by the static path."""
        assert self._batcher is not None
        prompt = [int(t) % m.vocab_size for t in range(3, 3 + 12)]
        try:
            with torch.inference_mode(), m.autocast():
                want = self.inference_model()(input_ids=torch.tensor([prompt], device=m.device)).logits[0, -1].float()
            sink = _Collect()
            probe = GenerationRequest(
                prompt_ids=prompt, max_tokens=1, temperature=0.0, top_p=1.0, stop_ids=frozenset(), seed=0
            )
            batcher = self._batcher
            batcher.submit([probe], sink)
            captured: list[torch.Tensor] = []
            original = batcher._forward

            def forward(*args: Any) -> torch.Tensor:
                logits = original(*args)
                captured.append(logits[-1])
                return logits

            batcher._forward = forward  # type: ignore[method-assign]
            try:
                while sink.results is None and sink.error is None:
                    batcher.step()
            finally:
                del batcher._forward
            batcher.drop_cache()
            batcher.prefix.stats = type(batcher.prefix.stats)()
            batcher.stats = type(batcher.stats)()
            tolerance = 1e-3 if m.compute_dtype == torch.float32 else 0.1
            diff = float((captured[-1] - want).abs().max()) if captured else float("inf")
            if sink.error is not None or diff > tolerance:
                return (
                    f"self-check failed (max logit difference {diff:.2e})"
                    if sink.error is None
                    else f"self-check failed ({sink.error})"
                )
        except Exception as exc:  # an architecture the slot attention cannot drive
            return f"self-check failed ({type(exc).__name__}: {exc})"
        return None

    @property
    def continuous(self) -> bool:
        _ = self.batcher  # resolves `fallback` for the loaded model
        return self.fallback is None

    @property
    def mode(self) -> str:
        """The path generations of the loaded model take (before a load: the continuous one)."""
        return "continuous" if self.engine.loaded is None or self.continuous else "static"

    @property
    def busy(self) -> bool:
        return self._batcher is not None and self._batcher.busy

    def mark_version(self, version: int) -> int:
        """New weights are swapped in under running generations: each running row notes the index of
        its first token sampled by `version`. Returns how many rows were running."""
        if self._batcher is None:
            return 0
        rows = [r for r in self._batcher.slots + self._batcher.waiting if r.finish is None]
        for row in rows:
            row.versions.append([len(row.out_ids), version])
        return len(rows)

    def weights_changed(self) -> None:
        """Drops every cached prefix: its keys/values belong to the old weights."""
        if self._batcher is not None:
            self._batcher.drop_cache()

    # ---- generation ----------------------------------------------------------------------------
    def submit(self, requests: list[GenerationRequest], sink: Any, stream: bool) -> Job:
        return self.batcher.submit(requests, sink, stream)

    def step(self) -> None:
        try:
            self.batcher.step()
        except Exception as exc:  # a failed step fails its sequences; the engine keeps serving
            self.batcher.fail_all(exc)
            raise

    def static(self, requests: list[GenerationRequest]) -> list[dict[str, Any]]:
        """The static path (a model the continuous batcher cannot serve): one batch, run to completion."""
        m = self.engine._require()
        results = generate(
            self.inference_model(),
            requests,
            pad_id=m.pad_id,
            device=m.device,
            decode=m.decode_reply,
            autocast=m.autocast(),
        )
        return [
            {
                "tokenIds": r.token_ids,
                "logprobs": r.logprobs,
                "finishReason": r.finish_reason,
                "text": r.text,
                "promptTokens": len(q.prompt_ids),
                "cachedTokens": 0,
            }
            for q, r in zip(requests, results)
        ]

    def run_to_completion(self, requests: list[GenerationRequest]) -> list[dict[str, Any]]:
        if not self.continuous:
            return self.static(requests)
        sink = _Collect()
        self.submit(requests, sink, stream=False)
        while sink.results is None and sink.error is None:
            self.step()
        if sink.error is not None:
            raise sink.error
        return sink.results or []

    # ---- settings and stats --------------------------------------------------------------------
    def configure(self, params: dict[str, Any]) -> dict[str, Any]:
        fields = {
            "maxRows": ("max_rows", 1, 4096),
            "prefillTokens": ("prefill_tokens", 16, 1 << 20),
            "kvCacheBytes": ("kv_bytes", 0, 1 << 50),
            "prefixCacheBytes": ("prefix_bytes", 0, 1 << 50),
            "blockTokens": ("block_tokens", 1, 4096),
            "shortRows": ("short_rows", 0, 4096),
            "shortTokens": ("short_tokens", 1, 1 << 20),
        }
        overrides = dict(self.overrides)
        for key, (attr, lo, hi) in fields.items():
            value = P.get_int(params, key, default=None, lo=lo, hi=hi)
            if value is not None:
                overrides[attr] = value
        if self._batcher is not None and self._batcher.busy and overrides != self.overrides:
            raise EngineError("state", "busy", "configure: batch and cache settings cannot change while generating")
        if overrides != self.overrides:
            self.overrides = overrides
            self._batcher = None  # rebuilt with the new settings on next use (the prefix cache is dropped)
        return self.summary()

    def summary(self) -> dict[str, Any]:
        if self.engine.loaded is None:
            return {"mode": self.mode}
        b = self.batcher
        c = b.config
        return {
            "mode": self.mode,
            "continuous": self.continuous,
            "fallback": self.fallback,
            "maxRows": c.max_rows,
            "prefillTokens": c.prefill_tokens,
            "kvCacheBytes": c.kv_bytes,
            "prefixCacheBytes": c.prefix_bytes,
            "blockTokens": c.block_tokens,
            "shortRows": c.short_rows,
            "shortTokens": c.short_tokens,
            "bytesPerToken": b.store.bytes_per_token,
        }

    def stats(self) -> dict[str, Any]:
        if self.engine.loaded is None:
            return {"mode": self.mode, "batch": None, "prefixCache": None}
        b = self.batcher
        return {"mode": self.mode, "batch": b.to_json(), "prefixCache": b.prefix.to_json()}
