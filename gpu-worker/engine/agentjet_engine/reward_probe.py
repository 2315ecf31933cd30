"""Linear probing of the score head before fine-tuning (LP-FT, Kumar et al. 2022): the backbone's
last-token hidden state of every training conversation is computed once (no gradients), the fresh score
head is fitted on those features with the run's loss, and only then is the whole model fine-tuned. A
fitted head makes the first fine-tuning steps useful (a random head's gradients mostly disturb the
backbone) and gives a usable reward model even with little fine-tuning on a slow CPU.
"""

from __future__ import annotations

from typing import Any

import torch

from .batching import pad_right
from .reward_train import pair_loss, point_loss


@torch.no_grad()
def last_token_features(
    model: Any, seqs: dict[str, list[int]], pad_id: int, device: torch.device, batch: int = 32
) -> dict[str, torch.Tensor]:
    """The backbone's final hidden state at each conversation's last (non-pad) token — what the score head reads."""
    backbone = getattr(model, model.base_model_prefix)
    order = sorted(seqs, key=lambda c: len(seqs[c]))
    out: dict[str, torch.Tensor] = {}
    for i in range(0, len(order), batch):
        chunk = order[i : i + batch]
        ids, attn = pad_right([seqs[c] for c in chunk], pad_id)
        ids, attn = ids.to(device), attn.to(device)
        hidden = backbone(input_ids=ids, attention_mask=attn).last_hidden_state
        # transformers' rule: the last token that is not the pad id.
        last = (torch.arange(ids.shape[1], device=device) * (ids != pad_id)).argmax(-1)
        for row, c in enumerate(chunk):
            out[c] = hidden[row, last[row]].float()
    return out


def probe_head(
    model: Any,
    feats: dict[str, torch.Tensor],
    loss: str,
    pairs: list[tuple[str, str]],
    points: list[tuple[str, int]],
    steps: int,
    lr: float = 1e-2,
    weight_decay: float = 1e-3,
) -> float:
    """Fits `model.score` (a bias-free linear layer) on the features, full batch; returns the final loss."""
    head = model.score
    names = sorted(feats)
    at = {c: i for i, c in enumerate(names)}
    x = torch.stack([feats[c] for c in names])
    opt = torch.optim.AdamW(head.parameters(), lr=lr, weight_decay=weight_decay)
    use_pairs = loss in ("pairwise", "both") and pairs
    use_points = loss in ("pointwise", "both") and points
    ci = torch.tensor([at[c] for c, _ in pairs]) if use_pairs else None
    ri = torch.tensor([at[r] for _, r in pairs]) if use_pairs else None
    qi = torch.tensor([at[c] for c, _ in points]) if use_points else None
    ql = torch.tensor([lab for _, lab in points]) if use_points else None
    value = 0.0
    for _ in range(steps):
        scores = head(x.to(head.weight.device)).squeeze(-1).float()
        total = torch.zeros((), device=scores.device)
        if ci is not None and ri is not None:
            total = total + pair_loss(scores[ci], scores[ri])
        if qi is not None and ql is not None:
            total = total + point_loss(scores[qi], ql.to(scores.device))
        opt.zero_grad(set_to_none=True)
        total.backward()
        opt.step()
        value = float(total.item())
    return value
