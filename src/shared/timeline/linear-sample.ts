// Builds the linear training sample of one chain of calls (each call's whole sequence a prefix of
// the next one's), at token level (plain masking) or at text level (splicing the exact sampled
// tokens of every absorbed call into the last call's re-rendered prompt).
//
// Text-level splicing. In the last call's prompt, an absorbed call A's output is re-rendered as
// the span of message m = A.messages.length:
//     [ header | body ]      header = A's generation prompt (e.g. `<|im_start|>assistant\n`)
//     body   = re-tokenized output + trailer (template text after the sampled turn, e.g. `\n`)
// The body minus its trailer is replaced by A.outputIds / A.outputLogprobs (masked); the header
// and trailer stay as unmasked template tokens, so the total length may change. The trailer is
// found by the first rule that applies:
//   1. the body starts with A.outputIds (no drift): the trailer is the rest of the body;
//   2. A stopped: the trailer follows the last occurrence of A's stop token within the last
//      MAX_TRAILER_TOKENS + 1 tokens of the body;
//   3. the longest "closing" learned by rules 1–2 from the chain's other calls (A's stop token +
//      trailer, or a truncated call's trailer) that ends the body: the template closed the turn
//      (a `length` call, or a stop token the template renders differently) and all of it is kept;
//   4. otherwise there is no trailer.
import {
  GENERATION_PROMPT_SPAN_INDEX,
  type GeneratedSpan,
  type LinearSample,
  type LossMask,
  type PromptSpan,
  type Timeline,
} from './types';
import { rangesEqual } from './hash';

/** How far from the body's end rule 2 looks for the stop token. */
export const MAX_TRAILER_TOKENS = 8;

export function generationPromptSpan(t: Timeline): PromptSpan | undefined {
  const last = t.promptSpans[t.promptSpans.length - 1];
  return last !== undefined && last.messageIndex === GENERATION_PROMPT_SPAN_INDEX ? last : undefined;
}

/** The prompt span of each message index of a call. */
export function spansByMessage(t: Timeline): Map<number, PromptSpan> {
  const spans = new Map<number, PromptSpan>();
  for (const span of t.promptSpans) if (span.messageIndex >= 0) spans.set(span.messageIndex, span);
  return spans;
}

/**
 * Where `member`'s output body lies in `into`'s prompt, or null when it cannot be spliced: the
 * message has no span, or the span does not start with `member`'s generation prompt tokens.
 */
export function outputBody(
  member: Timeline,
  into: Timeline,
  spans: Map<number, PromptSpan>,
): { start: number; end: number } | null {
  const span = spans.get(member.messages.length);
  const header = generationPromptSpan(member);
  if (span === undefined || header === undefined) return null;
  const headerLength = header.end - header.start;
  if (span.end - span.start < headerLength) return null;
  if (!rangesEqual(member.promptIds, header.start, into.promptIds, span.start, headerLength)) return null;
  return { start: span.start + headerLength, end: span.end };
}

class SampleWriter {
  readonly tokenIds: number[] = [];
  readonly lossMask: LossMask = [];
  readonly rolloutLogprobs: number[] = [];
  readonly spans: GeneratedSpan[] = [];

  copy(ids: readonly number[], from: number, to: number): void {
    for (let i = from; i < to; i++) {
      this.tokenIds.push(ids[i] ?? 0);
      this.lossMask.push(0);
      this.rolloutLogprobs.push(0);
    }
  }

  generated(t: Timeline): void {
    const start = this.tokenIds.length;
    t.outputIds.forEach((id, i) => {
      this.tokenIds.push(id);
      this.lossMask.push(1);
      this.rolloutLogprobs.push(t.outputLogprobs[i] ?? 0);
    });
    const end = this.tokenIds.length;
    if (end > start)
      this.spans.push({ timelineId: t.id, episodeId: t.episodeId, weightVersion: t.weightVersion, start, end });
  }

  sample(chain: readonly Timeline[], episodeId: string, taskId: string | undefined): LinearSample {
    const sample: LinearSample = {
      kind: 'linear',
      episodeId,
      tokenIds: this.tokenIds,
      lossMask: this.lossMask,
      rolloutLogprobs: this.rolloutLogprobs,
      spans: this.spans,
      absorbedTimelineIds: chain.map((t) => t.id),
    };
    if (taskId !== undefined) sample.taskId = taskId;
    return sample;
  }
}

function lastOf<T>(chain: readonly T[]): T {
  const last = chain[chain.length - 1];
  if (last === undefined) throw new Error('a chain has at least one call');
  return last;
}

/** One call as its own sample (mode `none`), or a token-level chain: the last call's sequence. */
export function buildTokenSample(chain: readonly Timeline[], taskId?: string): LinearSample {
  const last = lastOf(chain);
  const writer = new SampleWriter();
  let cursor = 0;
  for (const t of chain.slice(0, -1)) {
    // t's whole sequence is a prefix of last's prompt, so its output sits right after its prompt.
    writer.copy(last.promptIds, cursor, t.promptIds.length);
    writer.generated(t);
    cursor = t.promptIds.length + t.outputIds.length;
  }
  writer.copy(last.promptIds, cursor, last.promptIds.length);
  writer.generated(last);
  return writer.sample(chain, last.episodeId, taskId);
}

interface Cut {
  readonly member: Timeline;
  readonly bodyStart: number;
  readonly bodyEnd: number;
  trailer: number;
}

/** Rules 1–2: the trailer length, or null when neither applies. */
function exactTrailer(member: Timeline, prompt: readonly number[], cut: Cut): number | null {
  const out = member.outputIds;
  const bodyLength = cut.bodyEnd - cut.bodyStart;
  if (out.length <= bodyLength && rangesEqual(out, 0, prompt, cut.bodyStart, out.length))
    return bodyLength - out.length;
  const stop = out[out.length - 1];
  if (member.finishReason !== 'stop' || stop === undefined) return null;
  const lowest = Math.max(cut.bodyStart, cut.bodyEnd - 1 - MAX_TRAILER_TOKENS);
  for (let j = cut.bodyEnd - 1; j >= lowest; j--) if (prompt[j] === stop) return cut.bodyEnd - 1 - j;
  return null;
}

/** Finds every cut's trailer (rules 1–4 above). */
function findTrailers(cuts: Cut[], prompt: readonly number[]): void {
  const closings: number[][] = [];
  const pending: Cut[] = [];
  for (const cut of cuts) {
    const trailer = exactTrailer(cut.member, prompt, cut);
    if (trailer === null) {
      pending.push(cut);
      continue;
    }
    cut.trailer = trailer;
    const stopped = cut.member.finishReason === 'stop' && cut.member.outputIds.length > 0;
    const closingStart = cut.bodyEnd - trailer - (stopped ? 1 : 0);
    if (cut.bodyEnd > closingStart) closings.push(prompt.slice(closingStart, cut.bodyEnd));
  }
  closings.sort((a, b) => b.length - a.length);
  for (const cut of pending) {
    const bodyLength = cut.bodyEnd - cut.bodyStart;
    const closing = closings.find(
      (c) => c.length <= bodyLength && rangesEqual(c, 0, prompt, cut.bodyEnd - c.length, c.length),
    );
    cut.trailer = closing?.length ?? 0;
  }
}

/**
 * A text-level chain: the last call's prompt with every absorbed call's output body replaced by
 * its sampled tokens, then the last call's output. The chain builder has checked that every
 * member can be spliced (`outputBody` is not null).
 */
export function buildTextSample(chain: readonly Timeline[], taskId?: string): LinearSample {
  const last = lastOf(chain);
  const spans = spansByMessage(last);
  const cuts: Cut[] = [];
  for (const member of chain.slice(0, -1)) {
    const body = outputBody(member, last, spans);
    if (body === null) throw new Error(`timeline ${member.id} cannot be spliced into ${last.id}`);
    cuts.push({ member, bodyStart: body.start, bodyEnd: body.end, trailer: 0 });
  }
  cuts.sort((a, b) => a.bodyStart - b.bodyStart);
  findTrailers(cuts, last.promptIds);
  const writer = new SampleWriter();
  let cursor = 0;
  for (const cut of cuts) {
    writer.copy(last.promptIds, cursor, cut.bodyStart);
    writer.generated(cut.member);
    cursor = cut.bodyEnd - cut.trailer;
  }
  writer.copy(last.promptIds, cursor, last.promptIds.length);
  writer.generated(last);
  return writer.sample(chain, last.episodeId, taskId);
}
