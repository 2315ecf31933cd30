"""The memory estimator and the load-time plan (pure), and the engine refusing what cannot fit."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from agentjet_engine.engine import Engine
from agentjet_engine.errors import EngineError
from agentjet_engine.memory_plan import (
    CHECKPOINTING_FROM_PARAMS,
    QWEN25_1_5B,
    QWEN25_7B,
    DoesNotFit,
    GiB,
    PlanRequest,
    Setup,
    decoder_shape,
    default_lr,
    estimate,
    plan_training,
)


def test_shapes_match_the_published_parameter_counts() -> None:
    assert abs(QWEN25_7B.params - 7.616e9) / 7.616e9 < 0.001  # Qwen2.5-7B: 7.62B
    assert abs(QWEN25_1_5B.params - 1.544e9) / 1.544e9 < 0.001  # Qwen2.5-1.5B: 1.54B (tied head)


def test_full_fine_tune_state_of_a_7b_model() -> None:
    e = estimate(QWEN25_7B, Setup(mode="full", micro_batch_tokens=4096, checkpointing=True))
    # weights + gradients + AdamW: 16 bytes per parameter, the issue's ~122 GB
    assert abs(e.parameter_state - 16 * QWEN25_7B.params) < 16
    assert 121e9 < e.parameter_state < 123e9
    assert e.inference_copy == 0 and e.gathered == 0


def test_checkpointing_and_chunking_shrink_activations_and_logits() -> None:
    off = estimate(QWEN25_7B, Setup(mode="full", micro_batch_tokens=16384, checkpointing=False, chunk_rows=None))
    on = estimate(QWEN25_7B, Setup(mode="full", micro_batch_tokens=16384, checkpointing=True))
    assert on.activations < off.activations / 5
    assert off.logits == 16384 * 152064 * 16 and on.logits == 256 * 152064 * 12  # 37 GiB → 0.4 GiB


def test_fsdp_divides_the_parameter_state_and_adds_the_inference_copy() -> None:
    one = estimate(QWEN25_7B, Setup(mode="full", micro_batch_tokens=4096, checkpointing=True))
    two = estimate(QWEN25_7B, Setup(mode="full", micro_batch_tokens=4096, checkpointing=True, world_size=2))
    assert abs(two.parameter_state - one.parameter_state / 2) <= 8
    assert two.inference_copy == 4 * QWEN25_7B.params and two.gathered > 0


def test_lora_trains_a_small_fraction() -> None:
    e = estimate(QWEN25_7B, Setup(mode="lora", micro_batch_tokens=4096, checkpointing=True, lora_r=16))
    assert 30e6 < e.trainable < 50e6  # r=16 on every linear layer of the 28 layers
    assert e.weights < 2.1 * QWEN25_7B.params and e.gradients == 4 * e.trainable
    only_qv = QWEN25_7B.lora_params(16, ["q_proj", "v_proj"])
    assert 0 < only_qv < e.trainable / 4


def test_default_learning_rates() -> None:
    assert default_lr(3_100_000, "full") == 1e-4  # the built-in model's tuned rate
    assert default_lr(1_500_000_000, "full") == 1e-6
    assert default_lr(100_000_000, "full") == 1e-5  # log-linear in between
    assert default_lr(7_600_000_000, "lora") == 1e-5  # LoRA: 10× full


def test_auto_plan_picks_full_when_it_fits_else_lora() -> None:
    small = plan_training(QWEN25_1_5B, 139 * GiB, PlanRequest(micro_batch_tokens=8192), "cuda:0")
    assert small.mode == "full" and small.checkpointing and small.lr == 1e-6
    assert "full fine-tune fits" in small.reason and f"≥ {CHECKPOINTING_FROM_PARAMS // 10**6}M" in small.reason
    big = plan_training(QWEN25_7B, 139 * GiB, PlanRequest(micro_batch_tokens=16384), "cuda:0")
    assert big.mode == "lora" and big.lora_r == 16 and big.lora_alpha == 32 and big.lr == 1e-5
    assert "full fine-tune does not fit" in big.reason
    tiny = decoder_shape(256, 4, 4, 2, 704, 686, tied=True)
    builtin = plan_training(tiny, 8 * GiB, PlanRequest(micro_batch_tokens=4096, compute_bytes=4), "cpu")
    assert builtin.mode == "full" and not builtin.checkpointing and builtin.lr == 1e-4


def test_checkpointing_is_switched_on_to_fit_unless_fixed() -> None:
    shape = decoder_shape(1024, 8, 8, 8, 2816, 32000, tied=True)  # ~0.13B: below the threshold
    assert shape.params < CHECKPOINTING_FROM_PARAMS
    off = estimate(shape, Setup(mode="full", micro_batch_tokens=16384, checkpointing=False, compute_bytes=4))
    on = estimate(shape, Setup(mode="full", micro_batch_tokens=16384, checkpointing=True, compute_bytes=4))
    budget = (off.total + on.total) // 2
    plan = plan_training(shape, budget, PlanRequest(mode="full", micro_batch_tokens=16384, compute_bytes=4))
    assert plan.checkpointing and "switched on to fit" in plan.reason
    with pytest.raises(DoesNotFit, match="activation checkpointing on"):
        plan_training(
            shape, budget, PlanRequest(mode="full", micro_batch_tokens=16384, compute_bytes=4, checkpointing=False)
        )


def test_refusal_says_what_would_fit() -> None:
    with pytest.raises(DoesNotFit) as info:
        plan_training(QWEN25_7B, 139 * GiB, PlanRequest(mode="full", micro_batch_tokens=16384), "cuda:0")
    message = str(info.value)
    assert message.startswith("training the 7.62B-parameter model does not fit cuda:0 (139.0 GiB available)")
    assert "--lora-r 16" in message and "--engine-procs 2" in message and "--micro-batch-tokens 8192" in message
    with pytest.raises(DoesNotFit, match="nothing tried fits"):
        plan_training(QWEN25_7B, 4 * GiB, PlanRequest(mode="lora"), "cuda:0")


def test_the_engine_refuses_before_loading_and_plans_lora(make_engine: Callable[..., Engine]) -> None:
    with pytest.raises(EngineError) as info:
        make_engine(mode="full", memoryBudgetBytes=600 * 2**20)
    assert info.value.type == "invalid_params" and info.value.code == "does_not_fit"
    assert "would fit" in info.value.message or "nothing tried fits" in info.value.message
    full = make_engine().info()
    assert full["plan"]["mode"] == "full" and full["plan"]["lr"] == 1e-4 and not full["lora"]
    assert full["activationCheckpointing"] is False and full["worldSize"] == 1
    with pytest.raises(EngineError, match="lora options are given"):
        make_engine(mode="full", lora={"r": 2, "alpha": 4})


def test_fsdp_rank0_without_an_inference_copy_when_replicas_generate() -> None:
    """7B, full fine-tune in bf16 over 8 ranks: rank 0's copy is 28 GiB of fp32 weights, or nothing."""
    setup = Setup(mode="full", micro_batch_tokens=4096, checkpointing=True, world_size=8)
    with_copy = estimate(QWEN25_7B, setup)
    without = estimate(QWEN25_7B, Setup(**{**setup.__dict__, "inference_copy": False}))
    assert with_copy.inference_copy == 4 * QWEN25_7B.params and without.inference_copy == 0
    assert with_copy.total - without.total >= with_copy.inference_copy  # (the total adds a margin)
