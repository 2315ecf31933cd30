// Timelines and merged samples ⇄ their table rows: number arrays as compact blobs (codec.ts),
// messages/spans/output as JSON text, and a call's prompt stored as what follows the prefix it
// shares with an earlier call of its episode. Decoding re-validates with the shared schemas, so a row
// that does not make a valid Timeline / MergedSample is an error naming the row.
import { z } from 'zod';
import { MergedSampleSchema, TimelineSchema, type MergedSample, type Timeline } from '../../shared/timeline';
import {
  decodeFloat32,
  decodeInt32,
  decodeMask,
  decodeUint32,
  encodeFloat32,
  encodeInt32,
  encodeMask,
  encodeUint32,
} from './codec';

const Blob = z.custom<Uint8Array>((v) => v instanceof Uint8Array, { message: 'expected a blob' });

export const TimelineRecordSchema = z.object({
  timeline_id: z.string(),
  episode_id: z.string(),
  agent: z.string(),
  call_index: z.number().int(),
  weight_version: z.number().int(),
  finish_reason: z.string(),
  created_at: z.number(),
  /** Position (in the episode's stored order) of the earlier timeline whose prompt this one extends. */
  prompt_base: z.number().int().nonnegative().nullable(),
  /** Leading prompt tokens / request messages taken from `prompt_base` (not stored again). */
  prompt_shared: z.number().int().nonnegative(),
  messages_shared: z.number().int().nonnegative(),
  spans_shared: z.number().int().nonnegative(),
  /** The prompt's token ids after the shared ones. */
  prompt_ids: Blob,
  /** The prompt spans after the shared ones (JSON array). */
  prompt_spans: z.string(),
  output_ids: Blob,
  output_logprobs: Blob,
  /** The request's messages after the shared ones (JSON array). */
  messages: z.string(),
  tools: z.string().nullable(),
  output: z.string(),
});
export type TimelineRecord = z.infer<typeof TimelineRecordSchema>;

function commonPrefix<T>(a: readonly T[], b: readonly T[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/**
 * An episode's timelines as rows, in the given order. A call's prompt usually repeats an earlier
 * call's prompt and messages (the conversation so far): each row stores only what follows the
 * longest prompt prefix it shares with an earlier row, so an episode costs O(tokens), not
 * O(calls × tokens).
 */
export function timelinesToRecords(timelines: readonly Timeline[]): TimelineRecord[] {
  const messageKeys = timelines.map((t) => t.messages.map((m) => JSON.stringify(m)));
  const spanKeys = timelines.map((t) => t.promptSpans.map((sp) => JSON.stringify(sp)));
  return timelines.map((t, i) => {
    let base: number | null = null;
    let shared = 0;
    for (let j = 0; j < i; j++) {
      const n = commonPrefix(timelines[j]?.promptIds ?? [], t.promptIds);
      if (n > shared) [base, shared] = [j, n];
    }
    const messagesShared = base === null ? 0 : commonPrefix(messageKeys[base] ?? [], messageKeys[i] ?? []);
    const spansShared = base === null ? 0 : commonPrefix(spanKeys[base] ?? [], spanKeys[i] ?? []);
    return {
      timeline_id: t.id,
      episode_id: t.episodeId,
      agent: t.agent,
      call_index: t.callIndex,
      weight_version: t.weightVersion,
      finish_reason: t.finishReason,
      created_at: t.createdAt,
      prompt_base: base,
      prompt_shared: shared,
      messages_shared: messagesShared,
      spans_shared: spansShared,
      prompt_ids: encodeUint32(t.promptIds.slice(shared)),
      prompt_spans: JSON.stringify(t.promptSpans.slice(spansShared)),
      output_ids: encodeUint32(t.outputIds),
      output_logprobs: encodeFloat32(t.outputLogprobs),
      messages: JSON.stringify(t.messages.slice(messagesShared)),
      tools: t.tools === null ? null : JSON.stringify(t.tools),
      output: JSON.stringify(t.output),
    };
  });
}

function describe(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(row)'}: ${i.message}`).join('; ');
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`${what} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Rows (in stored order) back to timelines; a row that cannot make a valid Timeline is an error naming it. */
export function recordsToTimelines(rows: readonly unknown[]): Timeline[] {
  const out: Timeline[] = [];
  for (const raw of rows) {
    const r = TimelineRecordSchema.parse(raw);
    const damaged = (why: string): Error => new Error(`stored timeline ${r.timeline_id} is damaged: ${why}`);
    let promptPrefix: readonly number[] = [];
    let messagePrefix: readonly unknown[] = [];
    let spanPrefix: readonly unknown[] = [];
    if (r.prompt_base !== null) {
      const base = out[r.prompt_base];
      if (base === undefined) throw damaged(`its prompt base ${r.prompt_base} is not an earlier row`);
      if (
        r.prompt_shared > base.promptIds.length ||
        r.messages_shared > base.messages.length ||
        r.spans_shared > base.promptSpans.length
      ) {
        throw damaged('it shares more than its base holds');
      }
      promptPrefix = base.promptIds.slice(0, r.prompt_shared);
      messagePrefix = base.messages.slice(0, r.messages_shared);
      spanPrefix = base.promptSpans.slice(0, r.spans_shared);
    } else if (r.prompt_shared !== 0 || r.messages_shared !== 0 || r.spans_shared !== 0)
      throw damaged('it shares a prefix but has no base');
    const messages = parseJson(r.messages, `timeline ${r.timeline_id}'s messages`);
    const spans = parseJson(r.prompt_spans, `timeline ${r.timeline_id}'s prompt spans`);
    if (!Array.isArray(messages) || !Array.isArray(spans))
      throw damaged('its messages or prompt spans are not an array');
    const parsed = TimelineSchema.safeParse({
      id: r.timeline_id,
      episodeId: r.episode_id,
      agent: r.agent,
      callIndex: r.call_index,
      messages: [...messagePrefix, ...messages],
      tools: r.tools === null ? null : parseJson(r.tools, `timeline ${r.timeline_id}'s tools`),
      promptIds: [...promptPrefix, ...decodeUint32(r.prompt_ids)],
      promptSpans: [...spanPrefix, ...spans],
      outputIds: decodeUint32(r.output_ids),
      outputLogprobs: decodeFloat32(r.output_logprobs),
      finishReason: r.finish_reason,
      output: parseJson(r.output, `timeline ${r.timeline_id}'s output`),
      weightVersion: r.weight_version,
      createdAt: r.created_at,
    });
    if (!parsed.success) throw damaged(describe(parsed.error));
    out.push(parsed.data);
  }
  return out;
}

export const SampleRecordSchema = z.object({
  kind: z.enum(['linear', 'tree']),
  episode_ids: z.string(),
  task_id: z.string().nullable(),
  length: z.number().int().nonnegative(),
  token_ids: Blob,
  loss_mask: Blob,
  rollout_logprobs: Blob,
  spans: z.string(),
  absorbed: z.string(),
  parents: Blob.nullable(),
  positions: Blob.nullable(),
  weights: Blob.nullable(),
});
export type SampleRecord = z.infer<typeof SampleRecordSchema>;

export function sampleToRecord(s: MergedSample): SampleRecord {
  const tree = s.kind === 'tree' ? s : null;
  return {
    kind: s.kind,
    episode_ids: JSON.stringify(s.kind === 'tree' ? s.episodeIds : [s.episodeId]),
    task_id: s.taskId ?? null,
    length: s.tokenIds.length,
    token_ids: encodeUint32(s.tokenIds),
    loss_mask: encodeMask(s.lossMask),
    rollout_logprobs: encodeFloat32(s.rolloutLogprobs),
    spans: JSON.stringify(s.spans),
    absorbed: JSON.stringify(s.absorbedTimelineIds),
    parents: tree === null ? null : encodeInt32(tree.parents),
    positions: tree === null ? null : encodeInt32(tree.positions),
    weights: tree === null ? null : encodeInt32(tree.weights),
  };
}

const EpisodeIdsSchema = z.array(z.string()).min(1);

export function recordToSample(raw: unknown): MergedSample {
  const r = SampleRecordSchema.parse(raw);
  const episodeIds = EpisodeIdsSchema.parse(parseJson(r.episode_ids, 'sample episode ids'));
  const common = {
    ...(r.task_id === null ? {} : { taskId: r.task_id }),
    tokenIds: decodeUint32(r.token_ids),
    lossMask: decodeMask(r.loss_mask, r.length),
    rolloutLogprobs: decodeFloat32(r.rollout_logprobs),
    spans: parseJson(r.spans, 'sample spans'),
    absorbedTimelineIds: parseJson(r.absorbed, 'sample absorbed timeline ids'),
  };
  const candidate =
    r.kind === 'linear'
      ? { kind: 'linear', episodeId: episodeIds[0], ...common }
      : {
          kind: 'tree',
          episodeIds,
          ...common,
          parents: r.parents === null ? null : decodeInt32(r.parents),
          positions: r.positions === null ? null : decodeInt32(r.positions),
          weights: r.weights === null ? null : decodeInt32(r.weights),
        };
  const parsed = MergedSampleSchema.safeParse(candidate);
  if (!parsed.success) throw new Error(`stored ${r.kind} sample is damaged: ${describe(parsed.error)}`);
  return parsed.data;
}
