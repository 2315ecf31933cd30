"""Training memory estimate and the load-time plan: full fine-tune or LoRA, activation checkpointing,
learning rate — chosen from the parameter count and the device's memory before any weight is loaded.

Pure functions of a `ModelShape` (read from the model's config) and a `Setup`; `plan_training`
refuses a configuration that cannot fit with a message naming what would (LoRA, more ranks, a
smaller micro-batch, checkpointing). Byte counts per rank:

- weights: full fine-tune keeps fp32 master weights (4 B/param, bf16 compute under autocast); LoRA
  keeps the frozen base in the compute dtype and the adapter in fp32. Under FSDP divided by ranks.
- gradients and AdamW: 4 B and 8 B per trainable parameter (divided by ranks under FSDP).
- activations per token and layer, saved for backward in the compute dtype: about
  9·hidden + 4·kv_dim + 4·intermediate elements (norm inputs/outputs, q/k/v, rotated q/k, attention
  output, MLP gate/up/act/product), plus fp32 RMSNorm temporaries (4·hidden·4 B). With activation
  checkpointing only each layer's input is kept (hidden per token per layer) plus two layers'
  worth of activations while one is recomputed and back-propagated.
- logits: chunked, `chunk_rows × vocab × 4 B × 3` (logits, probabilities, their gradient); the
  unchunked reference path holds `tokens × vocab × 4 B × 4`.
- FSDP: two layers' full parameters gathered at a time, and on rank 0 the inference copy that
  generation runs on (the full weights in the training storage dtype).
- a frozen reference for the KL term under full fine-tuning (compute dtype), when asked for.
- 1 GiB of runtime overhead (CUDA context, allocator slack) and a 10 % margin on top.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

GiB = 2**30
# Activation checkpointing is on by default from this many parameters (0.2B): every model this
# project targets beyond the built-in one (Qwen2.5-0.5B and up) trains with it; the built-in 3.5M
# model and small test models keep the ~30 % faster step without recomputation. Below the threshold
# it is still switched on when the step would not fit otherwise.
CHECKPOINTING_FROM_PARAMS = 200_000_000
DEFAULT_LORA_R = 16  # alpha defaults to 2·r
OVERHEAD_BYTES = 1 * GiB
MARGIN = 1.10


@dataclass(frozen=True)
class ModelShape:
    params: int
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    vocab: int
    # (name, in_features, out_features) of every linear layer except the output head (LoRA targets)
    linears: tuple[tuple[str, int, int], ...] = ()

    @property
    def kv_dim(self) -> int:
        return self.kv_heads * self.head_dim

    def lora_params(self, r: int, targets: list[str] | None) -> int:
        """Adapter parameters: r·(in + out) per targeted linear (all of them when `targets` is None)."""
        chosen = [
            (n, i, o)
            for n, i, o in self.linears
            if targets is None or any(n == t or n.endswith("." + t) for t in targets)
        ]
        return sum(r * (i + o) for _, i, o in chosen)


def decoder_shape(
    hidden: int,
    layers: int,
    heads: int,
    kv_heads: int,
    intermediate: int,
    vocab: int,
    tied: bool,
    head_dim: int | None = None,
    qkv_bias: bool = True,
) -> ModelShape:
    """The shape of a Llama/Qwen2-style decoder from its config numbers (params counted as HF does)."""
    hd = head_dim or hidden // heads
    q, kv = heads * hd, kv_heads * hd
    per_layer = [
        ("self_attn.q_proj", hidden, q),
        ("self_attn.k_proj", hidden, kv),
        ("self_attn.v_proj", hidden, kv),
        ("self_attn.o_proj", q, hidden),
        ("mlp.gate_proj", hidden, intermediate),
        ("mlp.up_proj", hidden, intermediate),
        ("mlp.down_proj", intermediate, hidden),
    ]
    linears = tuple((f"model.layers.{i}.{n}", a, b) for i in range(layers) for n, a, b in per_layer)
    weights = sum(a * b for _, a, b in linears) + (layers * (q + 2 * kv) if qkv_bias else 0)
    norms = (2 * layers + 1) * hidden
    params = weights + norms + vocab * hidden * (1 if tied else 2)
    return ModelShape(params, hidden, layers, heads, kv_heads, hd, intermediate, vocab, linears)


# The shapes the GPU benchmark and bench/RESULTS.md's support table use (from the models' config.json).
QWEN25_1_5B = decoder_shape(1536, 28, 12, 2, 8960, 151936, tied=True)
QWEN25_7B = decoder_shape(3584, 28, 28, 4, 18944, 152064, tied=False)


@dataclass(frozen=True)
class Setup:
    mode: str  # "full" | "lora"
    micro_batch_tokens: int
    checkpointing: bool
    compute_bytes: int = 2  # bf16 on GPU; 4 for fp32 (CPU)
    world_size: int = 1
    chunk_rows: int | None = 256  # None: unchunked full logits
    lora_r: int = DEFAULT_LORA_R
    lora_targets: list[str] | None = field(default=None, hash=False)
    kl_reference: bool = False
    inference_copy: bool = True  # FSDP rank 0's full copy (False: rollout replicas generate)


@dataclass(frozen=True)
class Estimate:
    """Bytes on the busiest rank (rank 0: it also holds the inference copy under FSDP)."""

    weights: int
    gradients: int
    optimizer: int
    activations: int
    logits: int
    reference: int
    inference_copy: int
    gathered: int
    overhead: int
    trainable: int

    @property
    def total(self) -> int:
        parts = (
            self.weights
            + self.gradients
            + self.optimizer
            + self.activations
            + self.logits
            + self.reference
            + self.inference_copy
            + self.gathered
            + self.overhead
        )
        return int(parts * MARGIN)

    @property
    def parameter_state(self) -> int:
        """Weights + gradients + optimizer states: what FSDP divides among the ranks."""
        return self.weights + self.gradients + self.optimizer

    def describe(self) -> str:
        parts = [
            ("weights", self.weights),
            ("gradients", self.gradients),
            ("AdamW", self.optimizer),
            ("activations", self.activations),
            ("logits", self.logits),
            ("KL reference", self.reference),
            ("inference copy", self.inference_copy),
            ("FSDP gather", self.gathered),
        ]
        shown = ", ".join(f"{name} {gib(b)}" for name, b in parts if b > 0)
        return f"~{gib(self.total)} ({shown}, +overhead and 10% margin)"


def gib(n: float) -> str:
    value = n / GiB
    return f"{value:.1f} GiB" if value >= 0.1 else f"{n / 2**20:.0f} MiB"


def activation_bytes(shape: ModelShape, tokens: int, compute_bytes: int, checkpointing: bool) -> int:
    per_layer_token = (
        9 * shape.hidden + 4 * shape.kv_dim + 4 * shape.intermediate
    ) * compute_bytes + 4 * shape.hidden * 4
    final = 4 * shape.hidden * 4  # final norm, gathered hidden states (fp32)
    if checkpointing:
        return tokens * (shape.layers * shape.hidden * compute_bytes + 2 * per_layer_token + final)
    return tokens * (shape.layers * per_layer_token + final)


def logits_bytes(shape: ModelShape, tokens: int, chunk_rows: int | None) -> int:
    if chunk_rows is None:
        return tokens * shape.vocab * 4 * 4
    return min(tokens, chunk_rows) * shape.vocab * 4 * 3


def estimate(shape: ModelShape, setup: Setup) -> Estimate:
    """Peak training memory of one micro-batch step on the busiest rank (see the module docstring)."""
    w = max(1, setup.world_size)
    if setup.mode == "full":
        trainable = shape.params
        weights = 4 * shape.params // w
        reference = setup.compute_bytes * shape.params // w if setup.kl_reference else 0
        copy_bytes = 4 * shape.params if w > 1 and setup.inference_copy else 0
        gathered_bytes = 4
    elif setup.mode == "lora":
        trainable = shape.lora_params(setup.lora_r, setup.lora_targets)
        weights = (setup.compute_bytes * shape.params + 4 * trainable) // w
        reference = 0  # the reference is the base with the adapter switched off
        copy = w > 1 and setup.inference_copy
        copy_bytes = setup.compute_bytes * shape.params + 4 * trainable if copy else 0
        gathered_bytes = setup.compute_bytes
    else:
        raise ValueError(f"unknown mode {setup.mode!r}")
    per_layer = max(0, shape.params - 2 * shape.vocab * shape.hidden) // max(1, shape.layers)
    return Estimate(
        weights=weights,
        gradients=4 * trainable // w,
        optimizer=8 * trainable // w,
        activations=activation_bytes(shape, setup.micro_batch_tokens, setup.compute_bytes, setup.checkpointing),
        logits=logits_bytes(shape, setup.micro_batch_tokens, setup.chunk_rows),
        reference=reference,
        inference_copy=copy_bytes,
        gathered=2 * per_layer * gathered_bytes if w > 1 else 0,
        overhead=OVERHEAD_BYTES,
        trainable=trainable,
    )


def default_lr(params: int, mode: str) -> float:
    """Full fine-tune: 1e-4 up to 10M parameters (the built-in model's tuned rate), 1e-6 from 1B (the
    usual GRPO/PPO rate of 1.5–70B models), log-linear in between. LoRA: 10× the full rate (the
    optimum LoRA rate sits about an order of magnitude above full fine-tuning's), at most 1e-3."""
    lo_p, hi_p, lo_lr, hi_lr = 1e7, 1e9, 1e-4, 1e-6
    if params <= lo_p:
        full = lo_lr
    elif params >= hi_p:
        full = hi_lr
    else:
        t = (math.log(params) - math.log(lo_p)) / (math.log(hi_p) - math.log(lo_p))
        full = math.exp(math.log(lo_lr) + t * (math.log(hi_lr) - math.log(lo_lr)))
    return float(f"{(full if mode == 'full' else min(1e-3, 10 * full)):.2g}")


@dataclass(frozen=True)
class PlanRequest:
    mode: str = "auto"  # "auto" | "full" | "lora"
    lora_r: int | None = None  # given LoRA settings (mode "lora"); None: the defaults
    lora_alpha: float | None = None
    lora_targets: list[str] | None = field(default=None, hash=False)
    checkpointing: bool | None = None  # None: from the parameter count (and switched on to fit)
    micro_batch_tokens: int = 4096
    compute_bytes: int = 2
    world_size: int = 1
    kl_reference: bool = False
    chunk_rows: int = 256
    inference_copy: bool = True


@dataclass(frozen=True)
class Plan:
    mode: str
    lora_r: int | None
    lora_alpha: float | None
    lora_targets: list[str] | None
    checkpointing: bool
    lr: float
    estimate: Estimate
    budget: int
    reason: str

    def to_json(self) -> dict[str, object]:
        lora = (
            None
            if self.mode != "lora"
            else {"r": self.lora_r, "alpha": self.lora_alpha, "targetModules": self.lora_targets}
        )
        e = self.estimate
        return {
            "mode": self.mode,
            "lora": lora,
            "activationCheckpointing": self.checkpointing,
            "lr": self.lr,
            "reason": self.reason,
            "estimateBytes": e.total,
            "budgetBytes": self.budget,
            "trainableParams": e.trainable,
            "breakdown": {
                "weights": e.weights,
                "gradients": e.gradients,
                "optimizer": e.optimizer,
                "activations": e.activations,
                "logits": e.logits,
                "reference": e.reference,
                "inferenceCopy": e.inference_copy,
                "gathered": e.gathered,
            },
        }


class DoesNotFit(Exception):
    """The requested training setup cannot fit; the message says what would."""


def _setup(req: PlanRequest, mode: str, checkpointing: bool, **changes: object) -> Setup:
    base = Setup(
        mode=mode,
        micro_batch_tokens=req.micro_batch_tokens,
        checkpointing=checkpointing,
        compute_bytes=req.compute_bytes,
        world_size=req.world_size,
        chunk_rows=req.chunk_rows,
        lora_r=req.lora_r or DEFAULT_LORA_R,
        lora_targets=req.lora_targets,
        kl_reference=req.kl_reference,
        inference_copy=req.inference_copy,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def _fit(shape: ModelShape, setup: Setup, budget: int, checkpointing_fixed: bool) -> tuple[Setup, Estimate] | None:
    """The setup (checkpointing switched on if that is what it takes and it is not fixed) if it fits."""
    e = estimate(shape, setup)
    if e.total <= budget:
        return setup, e
    if not setup.checkpointing and not checkpointing_fixed:
        on = replace(setup, checkpointing=True)
        e = estimate(shape, on)
        if e.total <= budget:
            return on, e
    return None


def alternatives(shape: ModelShape, req: PlanRequest, mode: str, budget: int) -> list[str]:
    """What would fit instead of `mode` as requested (for the refusal message)."""
    ckpt = req.checkpointing if req.checkpointing is not None else True
    found: list[str] = []
    if mode == "full":
        lora = _fit(shape, _setup(req, "lora", ckpt), budget, req.checkpointing is not None)
        if lora:
            found.append(f"LoRA (r={lora[0].lora_r}: --lora-r {lora[0].lora_r}) ~{gib(lora[1].total)}")
    for ranks in (2, 4, 8, 16):
        if ranks <= req.world_size:
            continue
        more = _fit(shape, _setup(req, mode, ckpt, world_size=ranks), budget, req.checkpointing is not None)
        if more:
            found.append(
                f"{mode} fine-tune over {ranks} ranks (--engine-procs {ranks}, one GPU each) "
                f"~{gib(more[1].total)} on rank 0"
            )
            break
    tokens = req.micro_batch_tokens // 2
    while tokens >= 256:
        smaller = _fit(shape, _setup(req, mode, ckpt, micro_batch_tokens=tokens), budget, req.checkpointing is not None)
        if smaller:
            found.append(f"micro-batches of {tokens} tokens (--micro-batch-tokens {tokens}) ~{gib(smaller[1].total)}")
            break
        tokens //= 2
    if req.checkpointing is False:
        on = _fit(shape, _setup(req, mode, True), budget, True)
        if on:
            found.append(f"activation checkpointing on ~{gib(on[1].total)}")
    return found


def plan_training(shape: ModelShape, budget: int, req: PlanRequest, where: str = "the device") -> Plan:
    """Choose mode, checkpointing and learning rate, or raise DoesNotFit saying what would fit."""
    default_ckpt = shape.params >= CHECKPOINTING_FROM_PARAMS
    ckpt = req.checkpointing if req.checkpointing is not None else default_ckpt
    fixed = req.checkpointing is not None
    size = f"{shape.params / 1e9:.2f}B" if shape.params >= 1e8 else f"{shape.params / 1e6:.1f}M"
    modes = ["full", "lora"] if req.mode == "auto" else [req.mode]
    tried: list[str] = []
    for mode in modes:
        fit = _fit(shape, _setup(req, mode, ckpt), budget, fixed)
        if fit is None:
            need = estimate(shape, _setup(req, mode, True if not fixed else ckpt)).describe()
            tried.append(f"{'LoRA' if mode == 'lora' else 'full fine-tune'} does not fit (needs {need})")
            continue
        setup, e = fit
        why = [f"{size} parameters"]
        if req.mode == "auto":
            why.append("full fine-tune fits" if mode == "full" else f"{tried[0]}, so LoRA r={setup.lora_r}")
        if setup.checkpointing != ckpt:
            why.append("activation checkpointing switched on to fit")
        elif setup.checkpointing and not fixed:
            why.append(f"activation checkpointing on (≥ {CHECKPOINTING_FROM_PARAMS / 1e6:.0f}M parameters)")
        why.append(f"estimated {e.describe()} of {gib(budget)} on {where}")
        lora_r = setup.lora_r if mode == "lora" else None
        alpha = (req.lora_alpha or 2.0 * lora_r) if lora_r else None
        return Plan(
            mode,
            lora_r,
            alpha,
            setup.lora_targets if mode == "lora" else None,
            setup.checkpointing,
            default_lr(shape.params, mode),
            e,
            budget,
            "; ".join(why),
        )
    options = alternatives(shape, req, modes[-1], budget)
    hint = "; would fit: " + "; ".join(options) if options else "; nothing tried fits (a smaller model?)"
    raise DoesNotFit(
        f"training the {size}-parameter model does not fit {where} ({gib(budget)} available): "
        + "; ".join(tried)
        + hint
    )
