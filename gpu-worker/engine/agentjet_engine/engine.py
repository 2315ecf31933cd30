"""The engine's state and protocol methods: validate params, call the tensor modules, shape results."""

from __future__ import annotations

from typing import Any

import torch
import transformers

from . import params as P
from .distributed import RankGroup
from .engine_sync import SyncMethods
from .engine_training import TrainingEngine, set_threads
from .errors import EngineError, context_overflow, invalid
from .forced import ForcedReplies
from .generation import GenerationRequest
from .loading import LoadedModel, default_threads, dtype_name
from .rendering import normalise_messages, normalise_tools
from .scoring import MAX_TOP_ENTRIES, MAX_TOP_K, score_sequences, score_top_k
from .serving import Serving
from .trees import parse_token_seq


class Engine(SyncMethods, TrainingEngine):
    """Owns one model, its tokenizer, optimizer and weight version. Methods take and return JSON data.

    `load`, `train_step`, `save` and `restore` (engine_training.py) run on every rank; the rest on
    rank 0 against `self.loaded`, which under FSDP holds rank 0's inference copy."""

    def __init__(self, threads: int | None = None, group: RankGroup | None = None) -> None:
        set_threads(threads or default_threads())
        super().__init__(group)
        self._init_sync()
        self.serving = Serving(self)  # generation: continuous batcher, prefix cache, static path
        self.forced = ForcedReplies.from_env()  # test-only (forced.py)

    # ---- state -------------------------------------------------------------------------------
    def info(self, params: dict[str, Any] | None = None) -> dict[str, Any]:
        base = {
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "threads": torch.get_num_threads(),
            "weightVersion": self.weight_version,
            "role": self.role,
            **self.training_info(),
        }
        if self.loaded is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"
            return {
                **base,
                "loaded": False,
                "model": None,
                "device": device,
                "dtype": "bfloat16" if device == "cuda" else "float32",
                "params": 0,
                "trainableParams": 0,
                "vocabSize": 0,
                "contextLength": 0,
                "lora": False,
                "eosTokenIds": [],
                "padTokenId": -1,
                "serving": self.serving.summary(),
            }
        m = self.loaded
        return {
            **base,
            "loaded": True,
            "model": m.options.path,
            "device": m.device.type,
            "dtype": dtype_name(m.compute_dtype),
            "params": sum(p.numel() for p in m.model.parameters()),
            "trainableParams": sum(p.numel() for _, p in m.trainable_parameters()),
            "vocabSize": m.vocab_size,
            "contextLength": m.context_length,
            "lora": m.options.lora is not None,
            "eosTokenIds": list(m.eos_ids),
            "padTokenId": m.pad_id,
            "serving": self.serving.summary(),
        }

    # ---- text --------------------------------------------------------------------------------
    def render(self, params: dict[str, Any]) -> dict[str, Any]:
        m = self._require()
        assert self.renderer is not None
        messages = normalise_messages(params.get("messages"), m.options.tool_arguments_as_text)
        tools = normalise_tools(params.get("tools"))
        add_prompt = P.get_bool(params, "addGenerationPrompt", default=True)
        try:
            return self.renderer.render(messages, tools, add_prompt, context_length=m.context_length)
        except EngineError:
            raise
        except Exception as exc:  # jinja errors raised by the model's own template
            raise invalid("messages", f"the chat template could not render them: {exc}", "template_error") from exc

    def decode(self, params: dict[str, Any]) -> dict[str, Any]:
        m = self._require()
        sequences = P.get_list(params, "sequences")
        skip = P.get_bool(params, "skipSpecialTokens", default=True)
        ids = [P.token_ids(s, f"sequences[{i}]", m.vocab_size) for i, s in enumerate(sequences)]
        return {"texts": [m.tokenizer.decode(s, skip_special_tokens=skip) for s in ids]}

    # ---- tensors -----------------------------------------------------------------------------
    def _parse_generation(self, raw: Any, i: int, m: LoadedModel) -> GenerationRequest:
        field = f"requests[{i}]"
        r = P.obj(raw, field)
        prompt = P.token_ids(r.get("promptIds"), f"{field}.promptIds", m.vocab_size, min_len=1)
        if len(prompt) >= m.context_length:
            raise context_overflow(f"{field}.promptIds", len(prompt), m.context_length)
        max_tokens = P.get_int(r, "maxTokens", field, lo=0)
        stop = r.get("stopIds")
        stop_ids = m.eos_ids if stop is None else P.token_ids(stop, f"{field}.stopIds", m.vocab_size)
        seed = P.get_int(r, "seed", field, default=None, lo=0, hi=2**63 - 1)
        if seed is None:  # drawn from the engine's RNG, so a run is reproducible from the load seed
            seed = int(torch.randint(0, 2**62, (1,)).item())
        strings = P.get_list(r, "stop", field, default=[])
        if len(strings) > 16:
            raise invalid(f"{field}.stop", "at most 16 stop strings", "out_of_range")
        for j, text in enumerate(strings):
            if not isinstance(text, str) or not text or len(text) > 1024:
                raise invalid(
                    f"{field}.stop[{j}]", "must be a non-empty string of at most 1024 characters", "wrong_type"
                )
        return GenerationRequest(
            prompt_ids=prompt,
            max_tokens=min(max_tokens, m.context_length - len(prompt)),
            temperature=P.get_float(r, "temperature", field, lo=0.0),
            top_p=P.get_float(r, "topP", field, default=1.0, lo=0.0, hi=1.0, lo_open=True),
            stop_ids=frozenset(stop_ids),
            seed=seed,
            stop=tuple(strings),
            forced=self.forced.next(m.vocab_size, f"{field}.promptIds") if self.forced else (),
        )

    def parse_generate(self, params: dict[str, Any]) -> tuple[list[GenerationRequest], bool]:
        """(requests, stream) of a `generate` frame, validated."""
        m = self._require_serving()
        raw = P.get_list(params, "requests", min_len=1)
        if len(raw) > 1024:
            raise invalid("requests", "at most 1024 requests per frame", "out_of_range")
        stream = P.get_bool(params, "stream", default=False)
        return [self._parse_generation(r, i, m) for i, r in enumerate(raw)], stream

    def generate(self, params: dict[str, Any]) -> dict[str, Any]:
        """Synchronous `generate` (tests, scripts): runs the serving loop until these requests finish."""
        requests, _ = self.parse_generate(params)
        return {"results": self.serving.run_to_completion(requests), "weightVersion": self.weight_version}

    def configure(self, params: dict[str, Any]) -> dict[str, Any]:
        """Serving settings (`mode`, batch and cache budgets); see PROTOCOL.md."""
        return self.serving.configure(params)

    def cache_stats(self, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.serving.stats()

    def logprobs(self, params: dict[str, Any]) -> dict[str, Any]:
        m = self._require_serving()
        sequences = []
        for i, raw in enumerate(P.get_list(params, "sequences", min_len=1)):
            s = P.obj(raw, f"sequences[{i}]")
            ids = P.token_ids(s.get("tokenIds"), f"sequences[{i}].tokenIds", m.vocab_size, min_len=1)
            seq = parse_token_seq(s, f"sequences[{i}]", ids)
            if seq.depth > m.context_length:
                raise context_overflow(f"sequences[{i}].tokenIds", seq.depth, m.context_length)
            sequences.append(seq)
        top_k = P.get_int(params, "topK", default=0, lo=0, hi=MAX_TOP_K)
        tokens = sum(len(s.ids) for s in sequences)
        if top_k * tokens > MAX_TOP_ENTRIES:  # the reply grows with tokens × topK: bound it
            raise invalid(
                "topK",
                f"{top_k} per token over {tokens} tokens is more than {MAX_TOP_ENTRIES} entries; send fewer tokens",
                "too_large",
            )
        how = dict(
            pad_id=m.pad_id,
            device=m.device,
            autocast=m.autocast(),
            mask_dtype=m.compute_dtype,
            **self.scoring_options(),
        )
        if top_k == 0:
            return {"logprobs": score_sequences(m.model, sequences, **how)}
        scored = score_top_k(m.model, sequences, top_k, **how)  # one forward pass for both
        return {"logprobs": [s[0] for s in scored], "top": [{"ids": s[1], "logprobs": s[2]} for s in scored]}
