// Packs samples (linear chains or trees) that share a token prefix into prefix trees, flattened in
// DFS pre-order with parent indices and depth positions, so each token is computed once and
// attends only to its ancestors.
//
// Sharing rules, chosen so the packed loss is exact:
// - an untrained (prompt/template) token shares a node with any node of the same token id under
//   the same parent: same token, same ancestors, so the same hidden state;
// - a trained token shares an untrained node (the node becomes trained, once: e.g. A's output
//   that a diverging chain only resent as history), and shares a trained node only when the
//   two are indistinguishable to the loss: same episode (same advantage), same weight version,
//   same rollout logprob. The node then stands for both occurrences: `weights[i]` counts them;
// - otherwise a trained token gets its own sibling node with the same token id.
// A tree that came out as one unbranched path of one episode, each token trained at most once,
// is returned as a plain linear sample.
import type { GeneratedSpan, LinearSample, LossMask, MergedSample, TreeSample } from './types';

interface Source {
  readonly timelineId: string;
  readonly episodeId: string;
  readonly weightVersion: number;
}

interface PackNode {
  readonly token: number;
  /** In insertion order; scanned linearly (branching is small next to path lengths). */
  readonly children: PackNode[];
  logprob: number;
  /** Sources of the trained occurrences this token stands for; empty when untrained. */
  readonly sources: number[];
}

interface RootInfo {
  readonly episodeIds: Set<string>;
  readonly absorbed: Set<string>;
  readonly taskIds: Set<string | undefined>;
}

const newNode = (token: number): PackNode => ({ token, children: [], logprob: 0, sources: [] });

/** Accumulates samples into a forest; `build` flattens each tree into one sample. */
export class TreePacker {
  private readonly root = newNode(-1);
  private readonly sources: Source[] = [];
  private readonly sourceByTimeline = new Map<string, number>();
  private readonly roots = new Map<PackNode, RootInfo>();

  add(sample: MergedSample): void {
    const n = sample.tokenIds.length;
    if (n === 0) return;
    const tokenSources: number[][] = Array.from({ length: n }, () => []);
    for (const span of sample.spans) {
      const source = this.sourceOf(span);
      for (let i = span.start; i < span.end; i++) tokenSources[i]?.push(source);
    }
    const nodes: PackNode[] = [];
    for (let i = 0; i < n; i++) {
      const parentIndex = sample.kind === 'tree' ? (sample.parents[i] ?? -1) : i - 1;
      const parent = parentIndex < 0 ? this.root : (nodes[parentIndex] ?? this.root);
      nodes.push(this.child(parent, sample.tokenIds[i] ?? 0, tokenSources[i] ?? [], sample.rolloutLogprobs[i] ?? 0));
    }
    const root = nodes[0];
    if (root === undefined) return;
    let info = this.roots.get(root);
    if (info === undefined) {
      info = { episodeIds: new Set(), absorbed: new Set(), taskIds: new Set() };
      this.roots.set(root, info);
    }
    for (const id of sample.kind === 'tree' ? sample.episodeIds : [sample.episodeId]) info.episodeIds.add(id);
    for (const id of sample.absorbedTimelineIds) info.absorbed.add(id);
    info.taskIds.add(sample.taskId);
  }

  /** One sample per tree, in the order the trees were started. */
  build(): MergedSample[] {
    return this.root.children.map((root) => this.flatten(root));
  }

  private sourceOf(span: GeneratedSpan): number {
    const known = this.sourceByTimeline.get(span.timelineId);
    if (known !== undefined) return known;
    this.sources.push({ timelineId: span.timelineId, episodeId: span.episodeId, weightVersion: span.weightVersion });
    this.sourceByTimeline.set(span.timelineId, this.sources.length - 1);
    return this.sources.length - 1;
  }

  private sameForLoss(node: PackNode, source: number, logprob: number): boolean {
    const a = this.sources[node.sources[0] ?? -1];
    const b = this.sources[source];
    return (
      a !== undefined &&
      b !== undefined &&
      node.logprob === logprob &&
      a.episodeId === b.episodeId &&
      a.weightVersion === b.weightVersion
    );
  }

  private child(parent: PackNode, token: number, sources: readonly number[], logprob: number): PackNode {
    const first = sources[0];
    for (const node of parent.children) {
      if (node.token !== token) continue;
      if (first === undefined) return node;
      const untrained = node.sources.length === 0;
      if (untrained || this.sameForLoss(node, first, logprob)) {
        if (untrained) node.logprob = logprob;
        node.sources.push(...sources);
        return node;
      }
    }
    const node = newNode(token);
    node.logprob = first === undefined ? 0 : logprob;
    node.sources.push(...sources);
    parent.children.push(node);
    return node;
  }

  private flatten(root: PackNode): MergedSample {
    const tokenIds: number[] = [];
    const parents: number[] = [];
    const positions: number[] = [];
    const lossMask: LossMask = [];
    const rolloutLogprobs: number[] = [];
    const weights: number[] = [];
    const spans: GeneratedSpan[] = [];
    const openRun = new Map<number, GeneratedSpan>();
    let branched = false;
    const stack: { node: PackNode; parent: number; depth: number }[] = [{ node: root, parent: -1, depth: 0 }];
    for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
      const { node, parent, depth } = top;
      const index = tokenIds.length;
      tokenIds.push(node.token);
      parents.push(parent);
      positions.push(depth);
      lossMask.push(node.sources.length > 0 ? 1 : 0);
      rolloutLogprobs.push(node.sources.length > 0 ? node.logprob : 0);
      weights.push(node.sources.length);
      for (const s of node.sources) {
        const run = openRun.get(s);
        if (run !== undefined && run.end === index) run.end = index + 1;
        else {
          const source = this.sources[s];
          if (source === undefined) continue;
          const fresh: GeneratedSpan = { ...source, start: index, end: index + 1 };
          spans.push(fresh);
          openRun.set(s, fresh);
        }
      }
      if (node.children.length > 1) branched = true;
      for (let c = node.children.length - 1; c >= 0; c--) {
        const child = node.children[c];
        if (child !== undefined) stack.push({ node: child, parent: index, depth: depth + 1 });
      }
    }
    const info = this.roots.get(root) ?? {
      episodeIds: new Set<string>(),
      absorbed: new Set<string>(),
      taskIds: new Set<string | undefined>(),
    };
    const episodeIds = [...info.episodeIds];
    const taskIds = [...info.taskIds];
    const taskId = taskIds.length === 1 ? taskIds[0] : undefined;
    const common = { tokenIds, lossMask, rolloutLogprobs, spans, absorbedTimelineIds: [...info.absorbed] };
    if (!branched && episodeIds.length === 1 && weights.every((w) => w <= 1)) {
      const linear: LinearSample = { kind: 'linear', episodeId: episodeIds[0] ?? '', ...common };
      if (taskId !== undefined) linear.taskId = taskId;
      return linear;
    }
    const tree: TreeSample = { kind: 'tree', episodeIds, ...common, parents, positions, weights };
    if (taskId !== undefined) tree.taskId = taskId;
    return tree;
  }
}

/**
 * Packs samples into prefix trees (one sample per tree). Used per episode by `mergeTimelines`
 * in `tree` mode, and across the episodes of one task group (rollouts sharing the system + task
 * prompt) by the caller: pass one group's samples.
 */
export function packGroup(samples: readonly MergedSample[]): MergedSample[] {
  const packer = new TreePacker();
  for (const sample of samples) packer.add(sample);
  return packer.build();
}
