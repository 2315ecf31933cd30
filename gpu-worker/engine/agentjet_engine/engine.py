"""The engine's state and protocol methods: validate params, call the tensor modules, shape results."""

from __future__ import annotations

import gc
import random
from typing import Any

import numpy as np
import torch
import transformers

from . import checkpoint
from . import params as P
from .errors import EngineError, context_overflow, invalid, not_loaded
from .generation import GenerationRequest, generate
from .serving import Serving
from .loading import LoadedModel, default_threads, dtype_name, load_model, load_reference, parse_load_options
from .rendering import Renderer, normalise_messages, normalise_tools
from .scoring import forward_input, input_logprobs, score_sequences
from .training import parse_hyper, parse_samples, train_step
from .trees import ModelInput, parse_token_seq


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def set_threads(threads: int) -> None:
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)


class Engine:
    """Owns one model, its tokenizer, optimizer and weight version. Methods take and return JSON data."""

    def __init__(self, threads: int | None = None) -> None:
        set_threads(threads or default_threads())
        self.loaded: LoadedModel | None = None
        self.optimizer: torch.optim.Optimizer | None = None
        self.renderer: Renderer | None = None
        self.weight_version = 0
        self._reference: Any = None  # frozen load-time model for the KL term, made on first use
        self.serving = Serving(self)  # generation: continuous batcher, prefix cache, static path

    # ---- state -------------------------------------------------------------------------------
    def _require(self) -> LoadedModel:
        if self.loaded is None:
            raise not_loaded()
        return self.loaded

    def _trainable(self) -> list[tuple[str, torch.nn.Parameter]]:
        return self._require().trainable_parameters()

    def info(self, params: dict[str, Any] | None = None) -> dict[str, Any]:
        base = {"torch": torch.__version__, "transformers": transformers.__version__,
                "threads": torch.get_num_threads(), "weightVersion": self.weight_version}
        if self.loaded is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"
            return {**base, "loaded": False, "model": None, "device": device,
                    "dtype": "bfloat16" if device == "cuda" else "float32", "params": 0,
                    "trainableParams": 0, "vocabSize": 0, "contextLength": 0, "lora": False,
                    "eosTokenIds": [], "padTokenId": -1, "serving": self.serving.summary()}
        m = self.loaded
        return {**base, "loaded": True, "model": m.options.path, "device": m.device.type,
                "dtype": dtype_name(m.compute_dtype),
                "params": sum(p.numel() for p in m.model.parameters()),
                "trainableParams": sum(p.numel() for _, p in m.trainable_parameters()),
                "vocabSize": m.vocab_size, "contextLength": m.context_length, "lora": m.options.lora is not None,
                "eosTokenIds": list(m.eos_ids), "padTokenId": m.pad_id, "serving": self.serving.summary()}

    def load(self, params: dict[str, Any]) -> dict[str, Any]:
        options = parse_load_options(params)
        self.unload()
        set_threads(options.threads)
        seed_everything(options.seed)
        loaded = load_model(options)
        self.loaded = loaded
        self.renderer = Renderer(loaded.tokenizer)
        self.optimizer = torch.optim.AdamW([p for _, p in loaded.trainable_parameters()], lr=0.0,
                                           betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0)
        self.weight_version = 0
        return self.info()

    def unload(self) -> None:
        self.loaded = self.optimizer = self.renderer = self._reference = None
        self.weight_version = 0
        gc.collect()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()

    # ---- text --------------------------------------------------------------------------------
    def render(self, params: dict[str, Any]) -> dict[str, Any]:
        m = self._require()
        assert self.renderer is not None
        messages = normalise_messages(params.get("messages"))
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
                raise invalid(f"{field}.stop[{j}]", "must be a non-empty string of at most 1024 characters",
                              "wrong_type")
        return GenerationRequest(
            prompt_ids=prompt,
            max_tokens=min(max_tokens, m.context_length - len(prompt)),
            temperature=P.get_float(r, "temperature", field, lo=0.0),
            top_p=P.get_float(r, "topP", field, default=1.0, lo=0.0, hi=1.0, lo_open=True),
            stop_ids=frozenset(stop_ids), seed=seed, stop=tuple(strings))

    def parse_generate(self, params: dict[str, Any]) -> tuple[list[GenerationRequest], bool]:
        """(requests, stream) of a `generate` frame, validated."""
        m = self._require()
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
        m = self._require()
        sequences = []
        for i, raw in enumerate(P.get_list(params, "sequences", min_len=1)):
            s = P.obj(raw, f"sequences[{i}]")
            ids = P.token_ids(s.get("tokenIds"), f"sequences[{i}].tokenIds", m.vocab_size, min_len=1)
            seq = parse_token_seq(s, f"sequences[{i}]", ids)
            if seq.depth > m.context_length:
                raise context_overflow(f"sequences[{i}].tokenIds", seq.depth, m.context_length)
            sequences.append(seq)
        return {"logprobs": score_sequences(m.model, sequences, pad_id=m.pad_id, device=m.device,
                                            autocast=m.autocast(), mask_dtype=m.compute_dtype)}

    def _reference_logprobs(self, inp: ModelInput) -> torch.Tensor:
        """Per-token logprobs under the load-time weights: the adapter switched off under LoRA,
        otherwise a frozen copy reloaded from the model folder the first time it is needed."""
        m = self._require()
        if m.options.lora is not None:
            with m.model.disable_adapter():
                return input_logprobs(forward_input(m.model, inp, m.autocast()), inp)
        if self._reference is None:
            self._reference = load_reference(m)
        return input_logprobs(forward_input(self._reference, inp, m.autocast()), inp)

    def train_step(self, params: dict[str, Any]) -> dict[str, Any]:
        m = self._require()
        assert self.optimizer is not None
        samples = parse_samples(params.get("samples"), m.vocab_size, m.context_length)
        hyper = parse_hyper(params.get("hyper"))
        stats = train_step(m.model, self.optimizer, [p for _, p in self._trainable()], samples, hyper,
                           pad_id=m.pad_id, device=m.device, autocast=m.autocast,
                           reference=self._reference_logprobs if hyper.kl_coef > 0 else None,
                           mask_dtype=m.compute_dtype)
        if not hyper.dry_run:
            self.weight_version += 1
        return {**stats, "weightVersion": self.weight_version}

    # ---- checkpoints -------------------------------------------------------------------------
    def save(self, params: dict[str, Any]) -> dict[str, Any]:
        m = self._require()
        assert self.optimizer is not None
        path = P.get_str(params, "path")
        meta = {"weightVersion": self.weight_version, "load": m.options.to_json(),
                "torch": torch.__version__, "transformers": transformers.__version__}
        size = checkpoint.save(path, self._trainable(), self.optimizer, meta)
        return {"path": path, "weightVersion": self.weight_version, "bytes": size}

    def restore(self, params: dict[str, Any]) -> dict[str, Any]:
        m = self._require()
        assert self.optimizer is not None
        path = P.get_str(params, "path")
        meta = checkpoint.read_meta(path)
        saved_lora = (meta.get("load") or {}).get("lora")
        current_lora = m.options.to_json()["lora"]
        if saved_lora != current_lora:
            raise EngineError("state", "checkpoint_mismatch",
                              f"checkpoint was saved with lora={saved_lora}, but the model is loaded with "
                              f"lora={current_lora}")
        meta = checkpoint.restore(path, self._trainable(), self.optimizer)
        self.weight_version = int(meta["weightVersion"])
        return self.info()
