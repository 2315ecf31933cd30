// Test support: the merge invariants, as checks that throw a descriptive Error when violated —
// every generated token trained exactly once with its sampled id and logprob, no other token
// trained, and (token level) every trained token preceded by exactly its call's own context.
import { MergedSampleSchema, type GeneratedSpan, type MergedSample, type Timeline } from '../types';
import { sampleParents } from '../tree-utils';

function fail(message: string): never {
  throw new Error(message);
}

const same = (a: readonly number[], b: readonly number[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** Root-first indices of the path ending at `index` (linear: 0..index). */
export function pathTo(sample: MergedSample, index: number): number[] {
  const parents = sampleParents(sample);
  const path: number[] = [];
  for (let i = index; i >= 0; i = parents[i] ?? -1) path.push(i);
  return path.reverse();
}

/** Each call's generated runs, in token order, with their sample. */
export function runsByCall(
  samples: readonly MergedSample[],
): Map<string, { sample: MergedSample; span: GeneratedSpan }[]> {
  const runs = new Map<string, { sample: MergedSample; span: GeneratedSpan }[]>();
  for (const sample of samples) {
    for (const span of sample.spans) {
      const list = runs.get(span.timelineId) ?? [];
      list.push({ sample, span });
      runs.set(span.timelineId, list);
    }
  }
  return runs;
}

/**
 * Samples are schema-valid (spans cover exactly the masked tokens, logprobs 0 elsewhere), and
 * each call's output appears trained exactly once (per occurrence), with its exact ids, logprobs
 * and weight version. Returns Σ weights (trained occurrences).
 */
export function checkTrainedOnce(calls: readonly Timeline[], samples: readonly MergedSample[]): number {
  for (const sample of samples) {
    const parsed = MergedSampleSchema.safeParse(sample);
    if (!parsed.success) fail(`invalid sample: ${parsed.error.message}`);
  }
  const runs = runsByCall(samples);
  let occurrences = 0;
  for (const t of calls) {
    const mine = runs.get(t.id) ?? [];
    if (t.outputIds.length === 0) continue;
    const ids: number[] = [];
    const logprobs: number[] = [];
    const owner = mine[0]?.sample;
    for (const { sample, span } of mine) {
      if (sample !== owner) fail(`call ${t.id} is trained in two samples`);
      if (span.weightVersion !== t.weightVersion || span.episodeId !== t.episodeId)
        fail(`call ${t.id}: wrong span attribution`);
      ids.push(...sample.tokenIds.slice(span.start, span.end));
      logprobs.push(...sample.rolloutLogprobs.slice(span.start, span.end));
    }
    if (!same(ids, t.outputIds)) fail(`call ${t.id}: trained ids ${ids.join(',')} ≠ sampled ${t.outputIds.join(',')}`);
    if (!same(logprobs, t.outputLogprobs)) fail(`call ${t.id}: trained logprobs differ from the sampled ones`);
    occurrences += ids.length;
  }
  const known = new Set(calls.map((t) => t.id));
  for (const id of runs.keys()) if (!known.has(id)) fail(`span of unknown call ${id}`);
  return occurrences;
}

/** Token level: the context of every trained token is exactly its call's prompt + earlier output. */
export function checkTokenContext(calls: readonly Timeline[], samples: readonly MergedSample[]): void {
  const runs = runsByCall(samples);
  for (const t of calls) {
    const mine = runs.get(t.id);
    const last = mine?.[mine.length - 1];
    if (last === undefined) continue;
    const path = pathTo(last.sample, last.span.end - 1);
    const tokens = path.map((i) => last.sample.tokenIds[i] ?? -1);
    if (!same(tokens, [...t.promptIds, ...t.outputIds]))
      fail(`call ${t.id}: context in the sample differs from its own sequence`);
    const masked = path.slice(t.promptIds.length).every((i) => last.sample.lossMask[i] === 1);
    if (!masked) fail(`call ${t.id}: an output token on its path is not trained`);
  }
}

/** The trained tokens of a set of samples, counted with weights (Σ weights for trees). */
export function trainedOccurrences(samples: readonly MergedSample[]): number {
  let total = 0;
  for (const s of samples)
    total += s.kind === 'tree' ? s.weights.reduce((a, b) => a + b, 0) : s.lossMask.reduce<number>((a, b) => a + b, 0);
  return total;
}
