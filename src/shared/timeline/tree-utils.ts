// Reading tree-packed samples: subtree ends (the O(n) form of the tree attention mask), each
// token's ancestor list, and unpacking a sample into its root-to-leaf linear sequences (for tests
// and the engine's equivalence checks).
import type { LossMask, MergedSample } from './types';

/**
 * For a tree in DFS pre-order, `end[j]` is one past the last token of j's subtree, so token i
 * may attend to token j iff `j <= i && i < end[j]` (j is i or one of its ancestors).
 */
export function treeSubtreeEnds(parents: readonly number[]): number[] {
  const end = parents.map((_, i) => i + 1);
  for (let i = parents.length - 1; i > 0; i--) {
    const parent = parents[i] ?? -1;
    if (parent >= 0) end[parent] = Math.max(end[parent] ?? 0, end[i] ?? 0);
  }
  return end;
}

/**
 * For each token, the indices it attends to: its ancestors, root first, then itself. O(n·depth):
 * for tests and small trees; build masks from `treeSubtreeEnds` instead.
 */
export function treeAttentionAncestors(parents: readonly number[]): number[][] {
  const ancestors: number[][] = [];
  parents.forEach((parent, i) => {
    const above = parent >= 0 ? (ancestors[parent] ?? []) : [];
    ancestors.push([...above, i]);
  });
  return ancestors;
}

/** One root-to-leaf path of a sample as a plain sequence. */
export interface UnpackedSequence {
  readonly tokenIds: number[];
  readonly lossMask: LossMask;
  readonly rolloutLogprobs: number[];
  /** Position id of each token (0, 1, 2, …). */
  readonly positions: number[];
  /** Index in the packed sample of each token. */
  readonly indices: number[];
}

/** The parent index of every token of a sample (a linear sample is one path). */
export function sampleParents(sample: MergedSample): number[] {
  return sample.kind === 'tree' ? sample.parents : sample.tokenIds.map((_, i) => i - 1);
}

/** The root-to-leaf sequences of a sample, leaves in token order; a linear sample gives itself. */
export function unpackTree(sample: MergedSample): UnpackedSequence[] {
  const parents = sampleParents(sample);
  const hasChild = new Array<boolean>(parents.length).fill(false);
  for (const parent of parents) if (parent >= 0) hasChild[parent] = true;
  const sequences: UnpackedSequence[] = [];
  hasChild.forEach((inner, leaf) => {
    if (inner) return;
    const indices: number[] = [];
    for (let i = leaf; i >= 0; i = parents[i] ?? -1) indices.push(i);
    indices.reverse();
    sequences.push({
      tokenIds: indices.map((i) => sample.tokenIds[i] ?? 0),
      lossMask: indices.map((i) => sample.lossMask[i] ?? 0),
      rolloutLogprobs: indices.map((i) => sample.rolloutLogprobs[i] ?? 0),
      positions: indices.map((_, depth) => depth),
      indices,
    });
  });
  return sequences;
}

/** How many unmerged trained occurrences each token stands for (a linear sample: its mask). */
export function sampleWeights(sample: MergedSample): number[] {
  return sample.kind === 'tree' ? sample.weights : sample.lossMask.map((m) => m);
}

/**
 * Per-token advantages from per-episode ones (0 on untrained tokens), read from the spans: a tree
 * packed across episodes trains each token for exactly one episode. Missing episodes give 0.
 */
export function tokenAdvantages(sample: MergedSample, advantageByEpisode: Readonly<Record<string, number>>): number[] {
  const advantages = new Array<number>(sample.tokenIds.length).fill(0);
  for (const span of sample.spans) {
    const advantage = advantageByEpisode[span.episodeId] ?? 0;
    for (let i = span.start; i < span.end; i++) advantages[i] = advantage;
  }
  return advantages;
}
