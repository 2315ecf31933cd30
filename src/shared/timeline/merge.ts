// `mergeTimelines`: turns an episode's recorded calls into training samples — one per call
// (`none`), one per chain of calls (`linear`, token- or text-level), or prefix trees of those
// chains (`tree`) — with merge statistics per episode and in total. Pure: data in, data out.
//
// Loss exactness (token level). `none`: each call's output is trained once, in its own context.
// `linear`: every call's output is trained exactly once, preceded by exactly its own prompt
// (a chain's earlier sequences are prefixes of the last prompt), so the token-mean loss over the
// masked tokens equals `none`'s. `tree`: a packed token's ancestors are its context; a token
// trained in several chains is stored once with `weights` = its number of occurrences (only when
// they agree on episode, weight version and rollout logprob), so Σ weights·loss / Σ weights
// equals `none`'s token mean, and the plain mask gives the per-unique-token mean. Text level
// keeps the sampled tokens and logprobs exactly, but their context is the re-rendered history.
import { buildChains } from './chains';
import { buildTextSample, buildTokenSample } from './linear-sample';
import { computeStats, sumStats } from './stats';
import { packGroup } from './tree-pack';
import type { ChainBreak, EpisodeMergeStats, MergedSample, MergeOptions, MergeStats, Timeline } from './types';

export interface MergeResult {
  /** Samples grouped by episode (episodes by id), each episode's in order of its chains' first calls. */
  readonly samples: MergedSample[];
  /** Totals over all episodes. */
  readonly stats: MergeStats;
  readonly episodes: EpisodeMergeStats[];
}

/** Call order: callIndex, then creation time, then id, so input order never matters. */
export function compareCalls(a: Timeline, b: Timeline): number {
  return a.callIndex - b.callIndex || a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Calls grouped by episode, episodes sorted by id, calls in call order. */
export function groupByEpisode(timelines: readonly Timeline[]): [string, Timeline[]][] {
  const episodes = new Map<string, Timeline[]>();
  for (const t of timelines) {
    const calls = episodes.get(t.episodeId);
    if (calls === undefined) episodes.set(t.episodeId, [t]);
    else calls.push(t);
  }
  const sorted = [...episodes.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [, calls] of sorted) calls.sort(compareCalls);
  return sorted;
}

function mergeEpisode(
  calls: readonly Timeline[],
  options: MergeOptions,
  taskId: string | undefined,
): { samples: MergedSample[]; breaks: ChainBreak[] } {
  if (options.mode === 'none') return { samples: calls.map((t) => buildTokenSample([t], taskId)), breaks: [] };
  const { chains, breaks } = buildChains(calls, options.level);
  const build = options.level === 'token' ? buildTokenSample : buildTextSample;
  const linear = chains.map((chain) => build(chain, taskId));
  return { samples: options.mode === 'linear' ? linear : packGroup(linear), breaks };
}

export function mergeTimelines(timelines: readonly Timeline[], options: MergeOptions): MergeResult {
  const samples: MergedSample[] = [];
  const episodes: EpisodeMergeStats[] = [];
  for (const [episodeId, calls] of groupByEpisode(timelines)) {
    const merged = mergeEpisode(calls, options, options.taskIds?.[episodeId]);
    samples.push(...merged.samples);
    episodes.push({ episodeId, ...computeStats(calls, merged.samples, merged.breaks, 1) });
  }
  return { samples, stats: sumStats(episodes), episodes };
}
