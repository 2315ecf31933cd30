"""On-policy distillation from a teacher's top-k: the head's K-token logprobs and their gradient, the
`logprobs` call's `topK`, the `train_step` term (`distillCoef`, `teacherTop`) and its refusals."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import torch
from agentjet_engine.distill import top_k_kl
from agentjet_engine.engine import Engine
from agentjet_engine.errors import EngineError
from agentjet_engine.head import HeadLogprobs, head_logprobs, head_top_k
from agentjet_engine.pretrain import encode


@pytest.mark.parametrize("chunk", [1, 5, 1000])
def test_k_tokens_per_row_equal_full_logits_with_their_gradient(chunk: int) -> None:
    g = torch.Generator().manual_seed(chunk)
    n, h, v, k = 23, 8, 41, 4
    hidden = torch.randn(n, h, generator=g).requires_grad_()
    weight = torch.randn(v, h, generator=g).mul(0.5).requires_grad_()
    tokens = torch.randint(0, v, (n, k), generator=g)
    tokens[:, 2] = tokens[:, 1]  # a repeated token accumulates both gradients
    upstream = torch.randn(n, k, generator=g)

    logp, _ = HeadLogprobs.apply(hidden, weight, None, tokens, chunk)
    (logp * upstream).sum().backward()
    got = [hidden.grad.clone(), weight.grad.clone()]
    hidden.grad = weight.grad = None
    ref = torch.log_softmax(hidden @ weight.t(), -1).gather(1, tokens)
    (ref * upstream).sum().backward()

    assert logp.shape == (n, k)
    assert torch.allclose(logp, ref, atol=1e-5)
    for a, b in zip(got, [hidden.grad, weight.grad]):
        assert torch.allclose(a, b, atol=1e-5), (a - b).abs().max()


def test_a_wrapped_head_takes_k_tokens_too() -> None:
    g = torch.Generator().manual_seed(3)
    head = torch.nn.Sequential(torch.nn.Linear(6, 19))
    head.out_features = 19  # what head_logprobs reads of a wrapped head
    hidden = torch.randn(9, 6, generator=g)
    tokens = torch.randint(0, 19, (9, 3), generator=g)
    logp, entropy = head_logprobs(head, hidden, tokens, chunk=4)
    ref = torch.log_softmax(head(hidden), -1).gather(1, tokens)
    assert logp.shape == (9, 3) and entropy.shape == (9,)
    assert torch.allclose(logp, ref, atol=1e-5)


def test_head_top_k_is_the_k_most_likely_tokens() -> None:
    g = torch.Generator().manual_seed(4)
    head = torch.nn.Linear(8, 50, bias=True)
    hidden = torch.randn(11, 8, generator=g)
    ids, logp, own = head_top_k(head, hidden, 5, chunk=3, tokens=torch.arange(11))
    full = torch.log_softmax(head(hidden).detach(), -1)
    want = torch.topk(full, 5, -1)
    assert torch.equal(ids, want.indices)
    assert torch.allclose(logp, want.values, atol=1e-5)
    assert torch.allclose(own, full.gather(1, torch.arange(11).unsqueeze(1)).squeeze(1), atol=1e-5)


def test_top_k_kl_is_zero_only_when_the_student_matches_the_teacher_on_its_set() -> None:
    teacher = torch.log(torch.tensor([[0.5, 0.3, 0.1]]))  # 0.9 of the teacher's mass, renormalised
    exact = torch.log(torch.tensor([[5 / 9, 3 / 9, 1 / 9]]))
    assert float(top_k_kl(exact, teacher)) == pytest.approx(0.0, abs=1e-6)
    leaking = torch.log(torch.tensor([[0.5, 0.3, 0.1]]))  # same shape, 0.1 of the mass elsewhere
    assert float(top_k_kl(leaking, teacher)) == pytest.approx(-torch.log(torch.tensor(0.9)).item(), abs=1e-5)
    assert float(top_k_kl(torch.log(torch.tensor([[0.1, 0.3, 0.5]])), teacher)) > 0.3


def test_logprobs_top_k_matches_the_full_distribution(engine: Engine, corpus: list[dict[str, Any]]) -> None:
    ids = encode(engine.loaded.tokenizer, corpus[:1], engine.loaded.context_length)[0][0].ids[:20]
    out = engine.logprobs({"sequences": [{"tokenIds": ids}], "topK": 4})
    top = out["top"][0]
    assert top["ids"][0] == [] and top["logprobs"][0] == []
    m = engine.loaded
    with torch.no_grad():
        logits = m.model(input_ids=torch.tensor([ids], device=m.device)).logits[0].float()
    full = torch.log_softmax(logits, -1)
    for t in range(1, len(ids)):
        want = torch.topk(full[t - 1], 4)
        assert top["ids"][t] == want.indices.tolist()
        assert top["logprobs"][t] == pytest.approx(want.values.tolist(), abs=1e-4)
        assert out["logprobs"][0][t] == pytest.approx(float(full[t - 1, ids[t]]), abs=1e-4)
    assert "top" not in engine.logprobs({"sequences": [{"tokenIds": ids}]})
    with pytest.raises(EngineError, match="topK"):
        engine.logprobs({"sequences": [{"tokenIds": ids}], "topK": 65})
    with pytest.raises(EngineError, match="more than 1048576 entries"):  # the reply's size is bounded
        engine.logprobs({"sequences": [{"tokenIds": ids}] * (2**20 // (64 * len(ids)) + 1), "topK": 64})


def _distill_samples(student: Engine, teacher: Engine, corpus: list[dict[str, Any]], k: int) -> list[dict[str, Any]]:
    examples, _ = encode(student.loaded.tokenizer, corpus[:3], student.loaded.context_length)
    seqs = [{"tokenIds": e.ids} for e in examples]
    mine = student.logprobs({"sequences": seqs})["logprobs"]
    theirs = teacher.logprobs({"sequences": seqs, "topK": k})["top"]
    return [
        {"tokenIds": e.ids, "lossMask": e.mask, "advantages": 0.0, "rolloutLogprobs": lp, "teacherTop": top}
        for e, lp, top in zip(examples, mine, theirs)
    ]


def _mean_top_kl(student: Engine, samples: list[dict[str, Any]]) -> float:
    stats = student.train_step({"samples": samples, "hyper": {"lr": 1e-3, "distillCoef": 1.0, "dryRun": True}})
    return float(stats["distillKl"])


def test_distillation_moves_the_student_toward_the_teacher(make_engine: Any, corpus: list[dict[str, Any]]) -> None:
    teacher, student = make_engine(), make_engine()
    # a different teacher: a few steps of plain training on the corpus with a large advantage
    raw = _distill_samples(teacher, teacher, corpus, 8)
    push = [{k: v for k, v in s.items() if k != "teacherTop"} | {"advantages": 1.0} for s in raw]
    for _ in range(3):
        teacher.train_step({"samples": push, "hyper": {"lr": 3e-3}})
    samples = _distill_samples(student, teacher, corpus, 8)
    before = _mean_top_kl(student, samples)
    assert before > 0.01
    for _ in range(4):
        stats = student.train_step({"samples": samples, "hyper": {"lr": 2e-3, "distillCoef": 1.0}})
        assert stats["pgLoss"] == pytest.approx(0.0, abs=1e-6)  # zero advantages: the teacher term alone
        assert stats["loss"] == pytest.approx(stats["distillKl"], rel=1e-5)
    after = _mean_top_kl(student, samples)
    assert after < before * 0.9, (before, after)
    plain = student.train_step({"samples": samples, "hyper": {"lr": 1e-3, "dryRun": True}})
    assert plain["distillKl"] == 0.0


def test_distillation_refuses_what_it_cannot_train(make_engine: Any, corpus: list[dict[str, Any]]) -> None:
    engine = make_engine()
    samples = _distill_samples(engine, engine, corpus, 4)
    hyper = {"lr": 1e-3, "distillCoef": 1.0}
    no_top = [{k: v for k, v in s.items() if k != "teacherTop"} for s in samples]
    with pytest.raises(EngineError, match=r"samples\[0\].teacherTop.*distillCoef"):
        engine.train_step({"samples": no_top, "hyper": hyper})
    masked = samples[0]["lossMask"].index(1)
    bad_id = copy.deepcopy(samples)
    bad_id[0]["teacherTop"]["ids"][masked][0] = engine.loaded.vocab_size
    with pytest.raises(EngineError, match=r"teacherTop.ids"):
        engine.train_step({"samples": bad_id, "hyper": hyper})
    last = len(samples[0]["lossMask"]) - 1 - samples[0]["lossMask"][::-1].index(1)
    ragged = copy.deepcopy(samples)
    ragged[0]["teacherTop"]["ids"][last] = ragged[0]["teacherTop"]["ids"][last][:2]
    with pytest.raises(EngineError, match=r"teacherTop.ids\[\d+\]: must have at least 4"):
        engine.train_step({"samples": ragged, "hyper": hyper})
    positive = copy.deepcopy(samples)
    positive[0]["teacherTop"]["logprobs"][masked][0] = 0.5
    with pytest.raises(EngineError, match=r"log-probabilities"):
        engine.train_step({"samples": positive, "hyper": hyper})
    assert engine.weight_version == 0  # nothing trained on a refusal
