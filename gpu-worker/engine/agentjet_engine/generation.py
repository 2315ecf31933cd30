"""The static batched generation path (left-padded batch, finished rows fed pads): how the engine
generates for a model the continuous batcher (`scheduler.py`) cannot reproduce — attention it does
not drive, or a failed self-check (`serving.py`). It honours every sampling parameter the continuous
path does, with the same results for a seed: per-request temperature, top-p, seed (one CPU generator
per request), stop ids, max tokens, and stop strings (the same `TextTracker`: the tokens end with
the one that completed the stop string, the text ends before it); logprobs are raw. Shared with the
continuous path: `GenerationRequest`, `sample_tokens`, `TextTracker`. What it lacks is speed — no
prefix reuse, no joining a running batch, no streaming (the answer carries the whole text)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from transformers import DynamicCache

from .batching import pad_left, positions_from_mask
from .detok import TextTracker
from .forced import force_tokens, used_up
from .losses import gather_logprobs
from .sampling import sample_tokens


@dataclass
class GenerationRequest:
    prompt_ids: list[int]
    max_tokens: int  # already clamped to the context
    temperature: float  # 0 = greedy
    top_p: float
    stop_ids: frozenset[int]
    seed: int
    stop: tuple[str, ...] = ()  # stop strings (OpenAI `stop`): the output ends at the first one
    forced: tuple[int, ...] = ()  # test-only: the tokens to produce instead of sampling (forced.py)


@dataclass
class GenerationResult:
    token_ids: list[int]
    logprobs: list[float]  # raw: log-softmax of the unscaled logits (temperature 1, no top-p)
    finish_reason: str  # "stop" | "length"
    text: str = ""  # decoded `token_ids`, cut before a matched stop string


@torch.inference_mode()
def generate(
    model: Any,
    requests: list[GenerationRequest],
    *,
    pad_id: int,
    device: torch.device,
    decode: Callable[[list[int]], str],
    autocast: contextlib.AbstractContextManager[Any] | None = None,
) -> list[GenerationResult]:
    """Decode all requests together: one forward per step for the whole (left-padded) batch.

    Finished rows keep their slot but feed a masked-out pad token. Each row samples with its own
    CPU `torch.Generator` seeded from the request, drawing one uniform per step it is still active,
    so a request's tokens do not depend on what else is in the batch (up to float rounding).

    The logprob reported for a token is always the RAW one, log softmax of the model's logits at
    temperature 1 without top-p, i.e. the same quantity that `logprobs` and `train_step` compute;
    temperature and top-p only shape which token is drawn. A row whose text completes a stop string
    finishes with "stop" at that token, as in the continuous path.
    """
    results = [GenerationResult([], [], "length") for _ in requests]
    trackers = [TextTracker(decode, r.stop) for r in requests]
    active = [r.max_tokens > 0 for r in requests]
    if any(active):
        _decode_loop(model, requests, results, trackers, active, pad_id, device, autocast or contextlib.nullcontext())
    for result, tracker in zip(results, trackers):
        result.text = tracker.finish()[1] if tracker.stops else decode(result.token_ids)
    return results


def _decode_loop(
    model: Any,
    requests: list[GenerationRequest],
    results: list[GenerationResult],
    trackers: list[TextTracker],
    active: list[bool],
    pad_id: int,
    device: torch.device,
    autocast: contextlib.AbstractContextManager[Any],
) -> None:
    generators = [torch.Generator().manual_seed(r.seed) for r in requests]
    temperature = torch.tensor([r.temperature for r in requests], dtype=torch.float32, device=device)
    top_p = torch.tensor([r.top_p for r in requests], dtype=torch.float32, device=device)

    ids, mask = pad_left([r.prompt_ids for r in requests], pad_id)
    ids, mask = ids.to(device), mask.to(device)
    positions = positions_from_mask(mask)
    cache = DynamicCache(config=model.config)
    with autocast:
        out = model(
            input_ids=ids,
            attention_mask=mask,
            position_ids=positions,
            past_key_values=cache,
            use_cache=True,
            logits_to_keep=1,
        )
    next_pos = positions[:, -1] + 1

    for _ in range(max(r.max_tokens for r in requests)):
        logits = out.logits[:, -1, :].float()
        uniforms = torch.zeros(len(requests), dtype=torch.float32)
        for row, request in enumerate(requests):
            if active[row] and request.temperature > 0:
                uniforms[row] = torch.rand((), generator=generators[row])
        tokens = sample_tokens(logits, temperature, top_p, uniforms.to(device))
        if any(r.forced for r in requests):
            tokens = force_tokens(tokens, [(r.forced, len(res.token_ids)) for r, res in zip(requests, results)])
        token_logprobs = gather_logprobs(logits, tokens)
        tokens_list, logprobs_list = tokens.tolist(), token_logprobs.tolist()  # one sync per step

        step_mask = torch.zeros(len(requests), dtype=mask.dtype)
        for row, request in enumerate(requests):
            if not active[row]:
                continue
            result = results[row]
            result.token_ids.append(tokens_list[row])
            result.logprobs.append(logprobs_list[row])
            if trackers[row].stops:
                trackers[row].push(tokens_list[row])
            if tokens_list[row] in request.stop_ids or trackers[row].stopped:
                result.finish_reason, active[row] = "stop", False
            elif len(result.token_ids) >= request.max_tokens or used_up(request.forced, len(result.token_ids)):
                result.finish_reason, active[row] = "length", False
            else:
                step_mask[row] = 1
        if not any(active):
            break

        step_mask = step_mask.to(device)
        step_ids = torch.where(step_mask.bool(), tokens, torch.full_like(tokens, pad_id))
        mask = torch.cat([mask, step_mask.unsqueeze(1)], dim=1)
        with autocast:
            out = model(
                input_ids=step_ids.unsqueeze(1),
                attention_mask=mask,
                position_ids=next_pos.unsqueeze(1),
                past_key_values=cache,
                use_cache=True,
                logits_to_keep=1,
            )
        next_pos = next_pos + 1
