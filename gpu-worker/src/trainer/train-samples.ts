// Turns scored episodes into engine train samples: the episode's recorded calls are merged
// (timeline merging: none, linear, or tree — the worker's default), then every sample gets its episode's
// advantage (GRPO, RLOO or REINFORCE with a baseline, grouped by task). In `tree` mode the chains
// of one task group (rollouts sharing the system + task prompt) are packed into prefix trees whose
// tokens carry per-token advantages and multiplicity weights. Pure: data in, data out.
import { computeAdvantages, type AdvantageEstimator, type RewardScale } from '../../../src/shared/advantages';
import type { TrainSample } from '../../../src/shared/engine-protocol';
import {
  computeStats,
  type EpisodeMergeStats,
  mergeTimelines,
  packGroup,
  tokenAdvantages,
  type MatchLevel,
  type MergedSample,
  type MergeMode,
  type MergeStats,
  type Timeline,
} from '../../../src/shared/timeline/index';

export interface ScoredEpisode {
  episodeId: string;
  groupKey: string;
  /** The role it played (REINFORCE's baseline is per role). */
  role?: string;
  reward: number;
  timelines: readonly Timeline[];
}

export interface SampleOptions {
  estimator: AdvantageEstimator;
  /** GRPO's divisor (default `group`). */
  scale?: RewardScale;
  /**
   * `none` trains every call on its own; `linear` merges calls that extend each other; `tree`
   * also packs the chains of each task group into prefix trees (shared prompts computed once).
   */
  merge: MergeMode;
  level?: MatchLevel;
  /** Skip episodes whose advantage is 0 (zero-variance groups): they carry no gradient. */
  dropZeroAdvantage?: boolean;
  /** Tree mode: the cost model's `attentionTokens` (see `sequenceCost`). */
  treeAttentionTokens?: number;
  /**
   * Tree mode: no packed tree longer than this many tokens (the worker passes its micro-batch
   * budget, so a tree never needs more memory in one forward than a micro-batch of chains does).
   */
  maxTreeTokens?: number;
}

/**
 * Default `attentionTokens`: the sequence length at which attention costs about as much as the
 * rest of a forward/backward (roughly 6 × the hidden size; ~1.5k for the built-in model).
 */
export const DEFAULT_TREE_ATTENTION_TOKENS = 2048;

/**
 * Relative training cost of one packed sequence of `n` tokens: per-token work plus attention,
 * which a tree's dense (n × n) mask makes quadratic in its packed length, not in its depth. That
 * is the engine's fallback for an architecture its segment attention does not support
 * (tree_attention.py); segment attention costs less, so the model errs towards chains.
 */
export function sequenceCost(n: number, attentionTokens: number): number {
  return n + (n * n) / attentionTokens;
}

export interface BuiltSamples {
  samples: TrainSample[];
  /** The merged form of `samples` (same order): what the inspector shows as trained. */
  trained: MergedSample[];
  /** One per input episode, in input order. */
  advantages: number[];
  droppedEpisodes: number;
  merge: MergeStats;
  /** Per kept episode: its calls' merge (chain breaks by cause), before tree packing. */
  episodeStats: EpisodeMergeStats[];
}

/** The engine's form of a merged sample: tree samples keep their layout and weights. */
export function toTrainSample(sample: MergedSample, advantageByEpisode: Readonly<Record<string, number>>): TrainSample {
  const { tokenIds, lossMask, rolloutLogprobs } = sample;
  if (sample.kind === 'linear')
    return { tokenIds, lossMask, advantages: advantageByEpisode[sample.episodeId] ?? 0, rolloutLogprobs };
  return {
    tokenIds,
    lossMask,
    advantages: tokenAdvantages(sample, advantageByEpisode),
    rolloutLogprobs,
    parents: sample.parents,
    positions: sample.positions,
    weights: sample.weights,
  };
}

/**
 * A group's chains packed into trees of at most `maxTokens` each: the whole group when its trees
 * fit, else each half of it on its own (recursively; a single chain stays as long as it is).
 */
function packWithin(group: readonly MergedSample[], maxTokens: number): MergedSample[] {
  const packed = packGroup(group);
  if (group.length <= 1 || packed.every((s) => s.tokenIds.length <= maxTokens)) return packed;
  const half = Math.ceil(group.length / 2);
  return [...packWithin(group.slice(0, half), maxTokens), ...packWithin(group.slice(half), maxTokens)];
}

/**
 * Packs linear samples into prefix trees per task group (groups in order of first appearance),
 * no tree longer than `maxTreeTokens` (a group too large for one is split into several trees).
 * A group is packed only where the cost model says the trees train faster than its chains: a
 * long shared prompt pays, long rollouts that diverge early do not (their tree's attention grows
 * with the square of the group's total length).
 */
export function packByGroup(
  samples: readonly MergedSample[],
  groupOf: ReadonlyMap<string, string>,
  attentionTokens = DEFAULT_TREE_ATTENTION_TOKENS,
  maxTreeTokens = Number.POSITIVE_INFINITY,
): MergedSample[] {
  const groups = new Map<string, MergedSample[]>();
  for (const s of samples) {
    const key = groupOf.get(s.kind === 'linear' ? s.episodeId : (s.episodeIds[0] ?? '')) ?? '';
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [s]);
    else group.push(s);
  }
  const cost = (list: readonly MergedSample[]): number =>
    list.reduce((c, s) => c + sequenceCost(s.tokenIds.length, attentionTokens), 0);
  return [...groups.values()].flatMap((group) => {
    const packed = packWithin(group, maxTreeTokens);
    return cost(packed) < cost(group) ? packed : group;
  });
}

export function buildTrainSamples(episodes: readonly ScoredEpisode[], opts: SampleOptions): BuiltSamples {
  const advantages = computeAdvantages(episodes, {
    estimator: opts.estimator,
    ...(opts.scale ? { scale: opts.scale } : {}),
  });
  const advantageOf: Record<string, number> = {};
  const groupOf = new Map<string, string>();
  let droppedEpisodes = 0;
  const kept: Timeline[] = [];
  episodes.forEach((ep, i) => {
    const advantage = advantages[i] ?? 0;
    if (opts.dropZeroAdvantage && advantage === 0) {
      droppedEpisodes++;
      return;
    }
    advantageOf[ep.episodeId] = advantage;
    groupOf.set(ep.episodeId, ep.groupKey);
    kept.push(...ep.timelines);
  });
  const level = opts.level ?? 'token';
  const merged = mergeTimelines(kept, { mode: opts.merge === 'none' ? 'none' : 'linear', level });
  let mergedSamples = merged.samples;
  let stats = merged.stats;
  if (opts.merge === 'tree') {
    mergedSamples = packByGroup(merged.samples, groupOf, opts.treeAttentionTokens, opts.maxTreeTokens);
    stats = computeStats(kept, mergedSamples, merged.stats.breaks, merged.stats.episodes);
  }
  const trained = mergedSamples.filter((s) => s.lossMask.includes(1));
  return {
    samples: trained.map((s) => toTrainSample(s, advantageOf)),
    trained,
    advantages,
    droppedEpisodes,
    merge: stats,
    episodeStats: merged.episodes,
  };
}

const holds = (s: MergedSample, episodeId: string): boolean =>
  s.kind === 'linear' ? s.episodeId === episodeId : s.episodeIds.includes(episodeId);

/** What an update trained of one episode: the trained samples holding its tokens and their merge statistics. */
export function trainedOfEpisode(
  built: BuiltSamples,
  episodeId: string,
  calls: readonly Timeline[],
): { samples: MergedSample[]; stats: MergeStats } {
  const samples = built.trained.filter((s) => holds(s, episodeId));
  const breaks = built.episodeStats.find((e) => e.episodeId === episodeId)?.breaks ?? [];
  return { samples, stats: computeStats(calls, samples, breaks, 1) };
}
