"""Model loading: load options, device/dtype choice, tokenizer, optional LoRA (peft), reference model."""

from __future__ import annotations

import contextlib
import os
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer, PreTrainedTokenizerFast

from . import params as P
from .errors import invalid
from .memory_plan import ModelShape
from .tree_attention import ATTN_IMPLEMENTATION


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
    mode: str = "auto"  # "auto" | "full" | "lora" (see memory_plan.py)
    activation_checkpointing: bool | None = None  # None: from the parameter count, on when needed to fit
    micro_batch_tokens: int = 4096  # planning hint: the train_step micro-batch budget
    kl_coef: float = 0.0  # planning hint: > 0 budgets the KL reference
    memory_budget_bytes: int | None = None  # override the device's memory (per rank)
    chat_template: str | None = None  # replaces the folder's template (--chat-template, keep-reasoning variants)
    decode_special_tokens: bool = False  # replies keep special tokens (Harmony's <|channel|>…), stop ids dropped
    tool_arguments_as_text: bool = False  # templates that concatenate `arguments` (DeepSeek-V3) get JSON text
    # FSDP: rank 0 keeps a full inference copy for generation; False when rollout replicas generate instead
    inference_copy: bool = True

    def to_json(self) -> dict[str, Any]:
        lora = (
            None
            if self.lora is None
            else {
                "r": self.lora.r,
                "alpha": self.lora.alpha,
                "dropout": self.lora.dropout,
                "targetModules": self.lora.target_modules,
            }
        )
        return {
            "path": self.path,
            "device": self.device,
            "dtype": self.dtype,
            "lora": lora,
            "seed": self.seed,
            "threads": self.threads,
        }


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
        lora = LoraOptions(
            r=P.get_int(raw, "r", "lora", lo=1, hi=4096),
            alpha=P.get_float(raw, "alpha", "lora", lo=0.0, lo_open=True),
            dropout=P.get_float(raw, "dropout", "lora", default=0.0, lo=0.0, hi=0.99),
            target_modules=targets,
        )
    mode = P.get_str(params, "mode", default="auto", choices=("auto", "full", "lora"))
    if lora is not None:  # LoRA settings given: LoRA it is
        if mode == "full":
            raise invalid("mode", 'is "full" but lora options are given; drop one of them', "conflict")
        mode = "lora"
    return LoadOptions(
        path=str(folder.resolve()),
        device=P.get_str(params, "device", default="auto", choices=("auto", "cpu", "cuda")),
        dtype=P.get_str(params, "dtype", default="auto", choices=("auto", "float32", "bfloat16")),
        lora=lora,
        seed=P.get_int(params, "seed", default=0, lo=0, hi=2**63 - 1),
        threads=P.get_int(params, "threads", default=default_threads(), lo=1, hi=1024),
        mode=mode,
        activation_checkpointing=P.get_bool(params, "activationCheckpointing", default=None),
        micro_batch_tokens=P.get_int(params, "microBatchTokens", default=4096, lo=1),
        kl_coef=P.get_float(params, "klCoef", default=0.0, lo=0.0),
        memory_budget_bytes=P.get_int(params, "memoryBudgetBytes", default=None, lo=1),
        chat_template=P.get_str(params, "chatTemplate", default=None),
        decode_special_tokens=P.get_bool(params, "decodeSpecialTokens", default=False),
        tool_arguments_as_text=P.get_bool(params, "toolArgumentsAsText", default=False),
        inference_copy=P.get_bool(params, "inferenceCopy", default=True),
    )


def resolve_device(name: str, local_rank: int = 0) -> torch.device:
    """`auto` = CUDA if available else CPU; on CUDA each rank takes the GPU of its local rank."""
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda":
        if not torch.cuda.is_available():
            raise invalid("device", "CUDA was requested but torch.cuda.is_available() is false", "unavailable")
        if local_rank >= torch.cuda.device_count():
            raise invalid(
                "device",
                f"rank {local_rank} needs GPU {local_rank} but only {torch.cuda.device_count()} "
                "are visible (fewer --engine-procs, or --engine-devices)",
                "unavailable",
            )
        return torch.device("cuda", local_rank)
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
    # No weight-cast cache: it would hold a bf16 copy of every weight until the forward ends (under
    # FSDP, of every gathered layer), and each weight is cast once per forward anyway.
    return torch.autocast(device_type=device.type, dtype=compute_dtype, cache_enabled=False)


def load_tokenizer(path: str, chat_template: str | None = None) -> Any:
    """The folder's tokenizer, taken verbatim from tokenizer.json when there is one.

    transformers 5's AutoTokenizer rebuilds some tokenizers (e.g. every `qwen2` model) from
    vocab + merges with a hard-coded pre-tokenizer, ignoring tokenizer.json; loading the file
    directly keeps exactly the tokenizer the folder ships.
    """
    if (Path(path) / "tokenizer.json").is_file():
        tokenizer = PreTrainedTokenizerFast.from_pretrained(path)
    else:
        tokenizer = AutoTokenizer.from_pretrained(path)
    if chat_template is not None:
        tokenizer.chat_template = chat_template
    if not getattr(tokenizer, "chat_template", None):
        raise invalid(
            "path", "the tokenizer has no chat template (expected an instruct/chat model folder)", "no_chat_template"
        )
    check_template(tokenizer)
    return tokenizer


PROBE = [{"role": "user", "content": "hi"}]


def check_template(tokenizer: Any) -> None:
    """Refuse a template that cannot render the simplest conversation (one user message)."""
    try:
        tokenizer.apply_chat_template(PROBE, tokenize=False, add_generation_prompt=True)
    except Exception as exc:  # jinja errors, raise_exception(...) in the template, missing variables
        raise invalid(
            "path", f"the chat template raises on a one-message conversation: {exc}", "bad_chat_template"
        ) from exc


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

    def decode_reply(self, ids: list[int]) -> str:
        """A reply's text: special tokens skipped, or (families whose format is made of them, e.g.
        Harmony) kept, less the stop tokens that end the reply."""
        if not self.options.decode_special_tokens:
            return str(self.tokenizer.decode(ids, skip_special_tokens=True))
        stops = set(self.eos_ids)
        return str(self.tokenizer.decode([i for i in ids if i not in stops], skip_special_tokens=False))

    def trainable_parameters(self) -> list[tuple[str, torch.nn.Parameter]]:
        return [(n, p) for n, p in self.model.named_parameters() if p.requires_grad]


def fp32_output_head(model: Any) -> None:
    """Compute the output projection (logits) in fp32 even under bf16 autocast.

    bf16 logits are only good to ~0.1 nats at typical magnitudes, far too coarse for importance
    ratios exp(logp − rollout_logp); with fp32 logits, generation, `logprobs` and `train_step`
    agree to within the (much smaller) bf16 noise of the transformer body. (A bound method, so a
    deep copy of the model — FSDP's inference copy — computes with its own weights.)
    """
    head = model.get_output_embeddings()
    if isinstance(head, torch.nn.Linear):
        head.forward = types.MethodType(_fp32_linear_forward, head)


def _fp32_linear_forward(head: torch.nn.Linear, hidden: torch.Tensor) -> torch.Tensor:
    with torch.autocast(device_type=hidden.device.type, enabled=False):
        bias = None if head.bias is None else head.bias.float()
        return torch.nn.functional.linear(hidden.float(), head.weight.float(), bias)


# Attention implementations that take the engine's custom 4-D masks (tree-packed samples) as
# additive masks; flash-attention kernels only take 2-D padding masks. `sdpa` first, `eager` for
# architectures without sdpa support.
# `agentjet_sdpa` is sdpa plus the exact tree path (tree_attention.py).
ATTENTION_IMPLEMENTATIONS = (ATTN_IMPLEMENTATION, "sdpa", "eager")


def _from_pretrained(path: str, dtype: torch.dtype) -> Any:
    error: Exception | None = None
    for implementation in ATTENTION_IMPLEMENTATIONS:
        try:
            return AutoModelForCausalLM.from_pretrained(
                path, dtype=dtype, local_files_only=True, attn_implementation=implementation
            )
        except ValueError as exc:  # e.g. "does not support scaled_dot_product_attention": try the next
            error = exc
        except (OSError, KeyError) as exc:
            error = exc
            break
    raise invalid("path", f"could not load a causal LM from {path!r}: {error}", "load_failed") from error


def load_model(options: LoadOptions, local_rank: int = 0) -> LoadedModel:
    """Load the folder onto the device.

    Full fine-tuning keeps fp32 master weights and runs bf16 under autocast (bf16 weights would
    swallow small AdamW updates). Under LoRA the frozen base is stored in the compute dtype and
    peft keeps the adapter weights in fp32.
    """
    device = resolve_device(options.device, local_rank)
    compute_dtype = resolve_dtype(options.dtype, device)
    tokenizer = load_tokenizer(options.path, options.chat_template)
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
    return LoadedModel(
        options=options,
        model=model,
        tokenizer=tokenizer,
        device=device,
        compute_dtype=compute_dtype,
        eos_ids=eos_ids,
        pad_id=int(pad_id),
        context_length=context_length(model, tokenizer),
        vocab_size=int(model.get_input_embeddings().num_embeddings),
    )


def set_activation_checkpointing(model: Any, on: bool) -> None:
    """Recompute each decoder layer in backward instead of keeping its activations (non-reentrant
    torch.utils.checkpoint through transformers' GradientCheckpointingLayer); a no-op when unchanged."""
    if bool(getattr(model, "is_gradient_checkpointing", False)) == on:
        return
    if on:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    else:
        model.gradient_checkpointing_disable()


def model_shape(path: str) -> ModelShape:
    """The model's size and shape from its config alone: instantiated on the meta device (no memory)."""
    config = AutoConfig.from_pretrained(path, local_files_only=True)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    text = config.get_text_config()
    params = sum(p.numel() for p in model.parameters())  # tied weights are one parameter
    head = model.get_output_embeddings()
    linears = tuple(
        (name, m.in_features, m.out_features)
        for name, m in model.named_modules()
        if isinstance(m, torch.nn.Linear) and m is not head
    )
    hidden = int(text.hidden_size)
    heads = int(getattr(text, "num_attention_heads", 1) or 1)
    head_dim = int(getattr(text, "head_dim", None) or hidden // heads)
    return ModelShape(
        params=params,
        hidden=hidden,
        layers=int(text.num_hidden_layers),
        heads=heads,
        kv_heads=int(getattr(text, "num_key_value_heads", None) or heads),
        head_dim=head_dim,
        intermediate=int(getattr(text, "intermediate_size", None) or 4 * hidden),
        vocab=int(text.vocab_size),
        linears=linears,
    )


def memory_budget(device: torch.device, ranks_on_host: int = 1) -> int:
    """Bytes a rank may use: free GPU memory on CUDA, else the host's available RAM shared by its ranks."""
    if device.type == "cuda":
        free, _total = torch.cuda.mem_get_info(device)
        return int(free)
    available = None
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    available = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    if available is None:
        available = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return int(available // max(1, ranks_on_host))


def _apply_lora(model: Any, lora: LoraOptions) -> Any:
    from peft import LoraConfig, get_peft_model

    config = LoraConfig(
        r=lora.r,
        lora_alpha=lora.alpha,
        lora_dropout=lora.dropout,
        target_modules=lora.target_modules or "all-linear",
        task_type="CAUSAL_LM",
    )
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
