"""Model loading: load options, device/dtype choice, tokenizer, optional LoRA (peft), reference model."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedTokenizerFast

from . import params as P
from .errors import invalid


def default_threads() -> int:
    return max(1, min(4, os.cpu_count() or 1))


@dataclass
class LoraOptions:
    r: int
    alpha: float
    dropout: float = 0.0
    target_modules: list[str] | None = None  # None: every linear layer except the output head


@dataclass
class LoadOptions:
    path: str
    device: str = "auto"
    dtype: str = "auto"
    lora: LoraOptions | None = None
    seed: int = 0
    threads: int = field(default_factory=default_threads)

    def to_json(self) -> dict[str, Any]:
        lora = None if self.lora is None else {
            "r": self.lora.r, "alpha": self.lora.alpha, "dropout": self.lora.dropout,
            "targetModules": self.lora.target_modules}
        return {"path": self.path, "device": self.device, "dtype": self.dtype, "lora": lora,
                "seed": self.seed, "threads": self.threads}


def parse_load_options(params: dict[str, Any]) -> LoadOptions:
    path = P.get_str(params, "path")
    folder = Path(path)
    if not folder.is_dir():
        raise invalid("path", f"{path!r} is not a folder")
    if not (folder / "config.json").is_file():
        raise invalid("path", f"{path!r} has no config.json (expected a Hugging Face model folder)")
    lora = None
    if params.get("lora") is not None:
        raw = P.obj(params["lora"], "lora")
        targets = P.get_list(raw, "targetModules", "lora", default=None, min_len=1)
        if targets is not None:
            for i, t in enumerate(targets):
                if not isinstance(t, str) or not t:
                    raise invalid(f"lora.targetModules[{i}]", "must be a non-empty string", "wrong_type")
        lora = LoraOptions(r=P.get_int(raw, "r", "lora", lo=1, hi=4096),
                           alpha=P.get_float(raw, "alpha", "lora", lo=0.0, lo_open=True),
                           dropout=P.get_float(raw, "dropout", "lora", default=0.0, lo=0.0, hi=0.99),
                           target_modules=targets)
    return LoadOptions(
        path=str(folder.resolve()),
        device=P.get_str(params, "device", default="auto", choices=("auto", "cpu", "cuda")),
        dtype=P.get_str(params, "dtype", default="auto", choices=("auto", "float32", "bfloat16")),
        lora=lora,
        seed=P.get_int(params, "seed", default=0, lo=0, hi=2**63 - 1),
        threads=P.get_int(params, "threads", default=default_threads(), lo=1, hi=1024),
    )


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise invalid("device", "CUDA was requested but torch.cuda.is_available() is false", "unavailable")
    return torch.device(name)


def resolve_dtype(name: str, device: torch.device) -> torch.dtype:
    if name == "auto":
        return torch.bfloat16 if device.type == "cuda" else torch.float32
    return {"float32": torch.float32, "bfloat16": torch.bfloat16}[name]


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def autocast_context(device: torch.device, compute_dtype: torch.dtype) -> contextlib.AbstractContextManager[Any]:
    """bf16 compute over fp32 master weights (see `load_model`); nothing to do in fp32."""
    if compute_dtype == torch.float32:
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=compute_dtype)


def load_tokenizer(path: str) -> Any:
    """The folder's tokenizer, taken verbatim from tokenizer.json when there is one.

    transformers 5's AutoTokenizer rebuilds some tokenizers (e.g. every `qwen2` model) from
    vocab + merges with a hard-coded pre-tokenizer, ignoring tokenizer.json; loading the file
    directly keeps exactly the tokenizer the folder ships.
    """
    if (Path(path) / "tokenizer.json").is_file():
        tokenizer = PreTrainedTokenizerFast.from_pretrained(path)
    else:
        tokenizer = AutoTokenizer.from_pretrained(path)
    if not getattr(tokenizer, "chat_template", None):
        raise invalid("path", "the tokenizer has no chat template (expected an instruct/chat model folder)",
                      "no_chat_template")
    return tokenizer


def _ints(value: Any) -> list[int]:
    if value is None:
        return []
    return [int(v) for v in (value if isinstance(value, (list, tuple)) else [value])]


def eos_token_ids(model: Any, tokenizer: Any) -> list[int]:
    ids: list[int] = []
    generation_config = getattr(model, "generation_config", None)
    candidates = _ints(getattr(generation_config, "eos_token_id", None))
    candidates += _ints(model.config.get_text_config().eos_token_id) + _ints(tokenizer.eos_token_id)
    for i in candidates:
        if i not in ids:
            ids.append(i)
    return ids


def context_length(model: Any, tokenizer: Any) -> int:
    config = model.config.get_text_config()
    for key in ("max_position_embeddings", "n_positions", "max_sequence_length", "seq_length"):
        value = getattr(config, key, None)
        if isinstance(value, int) and value > 0:
            return value
    limit = getattr(tokenizer, "model_max_length", None)
    return int(limit) if isinstance(limit, int) and 0 < limit < 10**7 else 2048


@dataclass
class LoadedModel:
    """Everything `load` produces; the engine keeps one of these."""
    options: LoadOptions
    model: Any  # a transformers PreTrainedModel, or a peft PeftModel around one
    tokenizer: Any
    device: torch.device
    compute_dtype: torch.dtype
    eos_ids: list[int]
    pad_id: int
    context_length: int
    vocab_size: int

    def autocast(self) -> contextlib.AbstractContextManager[Any]:
        return autocast_context(self.device, self.compute_dtype)

    def trainable_parameters(self) -> list[tuple[str, torch.nn.Parameter]]:
        return [(n, p) for n, p in self.model.named_parameters() if p.requires_grad]


def fp32_output_head(model: Any) -> None:
    """Compute the output projection (logits) in fp32 even under bf16 autocast.

    bf16 logits are only good to ~0.1 nats at typical magnitudes, far too coarse for importance
    ratios exp(logp − rollout_logp); with fp32 logits, generation, `logprobs` and `train_step`
    agree to within the (much smaller) bf16 noise of the transformer body.
    """
    head = model.get_output_embeddings()
    if not isinstance(head, torch.nn.Linear):
        return

    def forward(hidden: torch.Tensor) -> torch.Tensor:
        with torch.autocast(device_type=hidden.device.type, enabled=False):
            bias = None if head.bias is None else head.bias.float()
            return torch.nn.functional.linear(hidden.float(), head.weight.float(), bias)

    head.forward = forward


# Attention implementations that take the engine's custom 4-D masks (tree-packed samples) as
# additive masks; flash-attention kernels only take 2-D padding masks. `sdpa` first, `eager` for
# architectures without sdpa support.
ATTENTION_IMPLEMENTATIONS = ("sdpa", "eager")


def _from_pretrained(path: str, dtype: torch.dtype) -> Any:
    error: Exception | None = None
    for implementation in ATTENTION_IMPLEMENTATIONS:
        try:
            return AutoModelForCausalLM.from_pretrained(path, dtype=dtype, local_files_only=True,
                                                        attn_implementation=implementation)
        except ValueError as exc:  # e.g. "does not support scaled_dot_product_attention": try the next
            error = exc
        except (OSError, KeyError) as exc:
            error = exc
            break
    raise invalid("path", f"could not load a causal LM from {path!r}: {error}", "load_failed") from error


def load_model(options: LoadOptions) -> LoadedModel:
    """Load the folder onto the device.

    Full fine-tuning keeps fp32 master weights and runs bf16 under autocast (bf16 weights would
    swallow small AdamW updates). Under LoRA the frozen base is stored in the compute dtype and
    peft keeps the adapter weights in fp32.
    """
    device = resolve_device(options.device)
    compute_dtype = resolve_dtype(options.dtype, device)
    tokenizer = load_tokenizer(options.path)
    storage_dtype = compute_dtype if options.lora is not None else torch.float32
    model = _from_pretrained(options.path, storage_dtype)
    if compute_dtype != torch.float32:
        fp32_output_head(model)
    if options.lora is not None:
        model = _apply_lora(model, options.lora)
    model.to(device)
    model.eval()
    eos_ids = eos_token_ids(model, tokenizer)
    pad_id = tokenizer.pad_token_id
    if pad_id is None:
        pad_id = model.config.get_text_config().pad_token_id
    if pad_id is None:
        pad_id = eos_ids[0] if eos_ids else 0
    return LoadedModel(options=options, model=model, tokenizer=tokenizer, device=device,
                       compute_dtype=compute_dtype, eos_ids=eos_ids, pad_id=int(pad_id),
                       context_length=context_length(model, tokenizer),
                       vocab_size=int(model.get_input_embeddings().num_embeddings))


def _apply_lora(model: Any, lora: LoraOptions) -> Any:
    from peft import LoraConfig, get_peft_model

    config = LoraConfig(r=lora.r, lora_alpha=lora.alpha, lora_dropout=lora.dropout,
                        target_modules=lora.target_modules or "all-linear", task_type="CAUSAL_LM")
    try:
        return get_peft_model(model, config)
    except ValueError as exc:
        raise invalid("lora.targetModules", str(exc), "bad_lora_targets") from exc


def load_reference(loaded: LoadedModel) -> Any:
    """A frozen copy of the load-time weights for the KL term (full fine-tuning only)."""
    ref = _from_pretrained(loaded.options.path, loaded.compute_dtype)
    if loaded.compute_dtype != torch.float32:
        fp32_output_head(ref)
    ref.to(loaded.device)
    ref.eval()
    ref.requires_grad_(False)
    return ref
