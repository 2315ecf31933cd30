"""Test helper: token-level timeline merging in miniature — calls, linear chains, prefix-tree packing.

Mirrors the rules of src/shared/timeline (merge.ts, tree-pack.ts) on plain token lists so the engine
tests can build unmerged, linear and tree-packed samples of the same calls and compare losses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Call:
    episode: str
    prompt: list[int]
    output: list[int]
    logprobs: list[float]  # rollout logprob of each output token


@dataclass
class Linear:
    episode: str
    ids: list[int]
    mask: list[int]
    logprobs: list[float]


def unmerged(calls: list[Call], advantage: dict[str, float]) -> list[dict[str, Any]]:
    """One train sample per call: its prompt + output, the loss on the output."""
    out = []
    for c in calls:
        n = len(c.prompt)
        out.append(
            {
                "tokenIds": c.prompt + c.output,
                "lossMask": [0] * n + [1] * len(c.output),
                "rolloutLogprobs": [0.0] * n + c.logprobs,
                "advantages": advantage[c.episode],
            }
        )
    return out


def linear_chains(calls: list[Call]) -> list[Linear]:
    """Calls in order; a call extends the newest chain whose sequence is a prefix of its prompt."""
    chains: list[Linear] = []
    for c in calls:
        chain = next(
            (
                ch
                for ch in reversed(chains)
                if ch.episode == c.episode and len(ch.ids) <= len(c.prompt) and c.prompt[: len(ch.ids)] == ch.ids
            ),
            None,
        )
        if chain is None:
            chain = Linear(c.episode, [], [], [])
            chains.append(chain)
        grow = len(c.prompt) - len(chain.ids)
        chain.ids += c.prompt[len(chain.ids) :] + c.output
        chain.mask += [0] * grow + [1] * len(c.output)
        chain.logprobs += [0.0] * grow + c.logprobs
    return chains


def linear_samples(chains: list[Linear], advantage: dict[str, float]) -> list[dict[str, Any]]:
    return [
        {"tokenIds": ch.ids, "lossMask": ch.mask, "rolloutLogprobs": ch.logprobs, "advantages": advantage[ch.episode]}
        for ch in chains
    ]


@dataclass
class _Node:
    token: int
    key: tuple[str, float] | None = None  # (episode, logprob) once trained
    weight: int = 0
    children: list[_Node] = field(default_factory=list)


def _child(parent: _Node, token: int, key: tuple[str, float] | None) -> _Node:
    for node in parent.children:
        if node.token != token:
            continue
        if key is None:
            return node
        if node.key is None or node.key == key:
            node.key = key
            node.weight += 1
            return node
    node = _Node(token, key, 0 if key is None else 1)
    parent.children.append(node)
    return node


def tree_pack(chains: list[Linear], advantage: dict[str, float]) -> list[dict[str, Any]]:
    """Prefix-tree samples (DFS pre-order): a trained token shares a node only with an untrained one
    or one trained for the same episode with the same logprob (its weight then counts both)."""
    root = _Node(-1)
    for ch in chains:
        node = root
        for t, m, lp in zip(ch.ids, ch.mask, ch.logprobs):
            node = _child(node, t, (ch.episode, lp) if m else None)
    samples = []
    for top in root.children:
        s: dict[str, list[Any]] = {
            k: [] for k in ("tokenIds", "parents", "positions", "lossMask", "rolloutLogprobs", "weights", "advantages")
        }
        stack = [(top, -1, 0)]
        while stack:
            node, parent, depth = stack.pop()
            index = len(s["tokenIds"])
            trained = node.key is not None
            s["tokenIds"].append(node.token)
            s["parents"].append(parent)
            s["positions"].append(depth)
            s["lossMask"].append(1 if trained else 0)
            s["rolloutLogprobs"].append(node.key[1] if node.key else 0.0)
            s["weights"].append(node.weight)
            s["advantages"].append(advantage[node.key[0]] if node.key else 0.0)
            stack.extend((child, index, depth + 1) for child in reversed(node.children))
        samples.append(s)
    return samples


def unpack(sample: dict[str, Any]) -> list[list[int]]:
    """Root-to-leaf index paths of a tree sample."""
    parents = sample["parents"]
    inner = {p for p in parents if p >= 0}
    paths = []
    for leaf in range(len(parents)):
        if leaf in inner:
            continue
        path, i = [], leaf
        while i >= 0:
            path.append(i)
            i = parents[i]
        paths.append(path[::-1])
    return paths
