// Structural checks behind the timeline and sample schemas: span coverage, array lengths, the
// tree layout (DFS pre-order, depth positions) and span/mask/weight agreement. Each returns the
// list of problems found (empty when valid), so schemas can report them as issues.

interface SpanLike {
  readonly messageIndex: number;
  readonly start: number;
  readonly end: number;
}
interface TimelineLike {
  readonly messages: readonly unknown[];
  readonly promptIds: readonly number[];
  readonly promptSpans: readonly SpanLike[];
  readonly outputIds: readonly number[];
  readonly outputLogprobs: readonly number[];
  readonly output: { readonly role: string };
}
interface RunLike {
  readonly start: number;
  readonly end: number;
}
interface SampleLike {
  readonly tokenIds: readonly number[];
  readonly lossMask: readonly number[];
  readonly rolloutLogprobs: readonly number[];
  readonly spans: readonly RunLike[];
}
interface TreeLike extends SampleLike {
  readonly parents: readonly number[];
  readonly positions: readonly number[];
  readonly weights: readonly number[];
}

export function checkTimeline(t: TimelineLike): string[] {
  const problems: string[] = [];
  if (t.outputLogprobs.length !== t.outputIds.length)
    problems.push('outputLogprobs must have one logprob per output token');
  if (t.output.role !== 'assistant') problems.push('output must be an assistant message');
  let cursor = 0;
  const seen = new Set<number>();
  t.promptSpans.forEach((span, i) => {
    if (span.start !== cursor || span.end < span.start)
      problems.push(`promptSpans[${i}] must start where the previous span ends`);
    cursor = span.end;
    if (span.messageIndex >= t.messages.length)
      problems.push(`promptSpans[${i}] names message ${span.messageIndex}, beyond the messages`);
    if (span.messageIndex === -2 && i !== t.promptSpans.length - 1)
      problems.push('the generation-prompt span must be the last span');
    if (span.messageIndex >= 0) {
      if (seen.has(span.messageIndex)) problems.push(`message ${span.messageIndex} has two spans`);
      seen.add(span.messageIndex);
    }
  });
  if (cursor !== t.promptIds.length) problems.push('promptSpans must cover promptIds exactly');
  if (seen.size !== t.messages.length) problems.push('every message must have a prompt span');
  return problems;
}

/** How many spans cover each position, or null (with a problem) when a span is out of range. */
function spanCoverage(s: SampleLike, problems: string[]): number[] | null {
  const cover = new Array<number>(s.tokenIds.length).fill(0);
  for (const run of s.spans) {
    if (run.start >= run.end || run.end > s.tokenIds.length) {
      problems.push(`span [${run.start}, ${run.end}) is empty or out of range`);
      return null;
    }
    for (let i = run.start; i < run.end; i++) cover[i] = (cover[i] ?? 0) + 1;
  }
  return cover;
}

function checkCommon(s: SampleLike, problems: string[]): number[] | null {
  const n = s.tokenIds.length;
  if (s.lossMask.length !== n || s.rolloutLogprobs.length !== n) {
    problems.push('tokenIds, lossMask and rolloutLogprobs must have the same length');
    return null;
  }
  if (s.lossMask[0] === 1) problems.push('the first token has no context and cannot be trained');
  for (let i = 0; i < n; i++) {
    if (s.lossMask[i] === 0 && s.rolloutLogprobs[i] !== 0) {
      problems.push(`rolloutLogprobs[${i}] must be 0 where the loss mask is 0`);
      break;
    }
  }
  return spanCoverage(s, problems);
}

export function checkLinearSample(s: SampleLike): string[] {
  const problems: string[] = [];
  const cover = checkCommon(s, problems);
  if (cover !== null && cover.some((c, i) => c !== s.lossMask[i]))
    problems.push('spans must cover exactly the masked tokens, once each');
  return problems;
}

/** True when `parents` lists a single tree in DFS pre-order (each parent is on the current path). */
export function isPreorderTree(parents: readonly number[]): boolean {
  if (parents.length === 0 || parents[0] !== -1) return false;
  const path: number[] = [0];
  for (let i = 1; i < parents.length; i++) {
    const parent = parents[i] ?? -1;
    while (path.length > 0 && path[path.length - 1] !== parent) path.pop();
    if (path.length === 0) return false;
    path.push(i);
  }
  return true;
}

export function checkTreeSample(s: TreeLike): string[] {
  const problems: string[] = [];
  const n = s.tokenIds.length;
  if (n === 0) problems.push('a tree sample has at least one token');
  if (s.parents.length !== n || s.positions.length !== n || s.weights.length !== n) {
    problems.push('parents, positions and weights must have one entry per token');
    return problems;
  }
  const cover = checkCommon(s, problems);
  if (!isPreorderTree(s.parents)) problems.push('parents must describe one tree in DFS pre-order');
  else if (s.positions.some((p, i) => p !== (i === 0 ? 0 : (s.positions[s.parents[i] ?? 0] ?? 0) + 1))) {
    problems.push('positions must be the depth of each token');
  }
  if (cover !== null) {
    if (cover.some((c, i) => c !== s.weights[i])) problems.push('weights must count the spans covering each token');
    if (s.weights.some((w, i) => (w > 0 ? 1 : 0) !== s.lossMask[i]))
      problems.push('lossMask must be 1 exactly where weights > 0');
  }
  return problems;
}
