// The teacher of on-policy distillation (docs/learned-rewards.md, "On-policy distillation"): another
// worker, reached over its admin API, that scores token sequences with its engine's `logprobs`
// (POST /swarm/v1/logprobs) and, with `topK`, also names each position's k most likely tokens and
// their logprobs (distillation from the teacher's top-k: a dense signal at every trained token instead
// of the sampled token's alone). Requests are batched by tokens and each has a deadline. Before a run
// trains on a teacher, `checkSameTokenizer` compares the two vocabularies piece by piece: token ids
// only mean the same text under the same tokenizer, so a mismatch refuses the start.
import { z } from 'zod';
import { batchByTokens } from '../../../src/shared/distill';
import { LogprobsResultSchema, type LogprobsSequence, type TopLogprobs } from '../../../src/shared/engine-protocol';

/** How many of the updates' teacher sequences had been scored ahead (teacher-prefetch.ts). */
export interface PrefetchFigures {
  sequences: number;
  prefetched: number;
}

/** A teacher's scores of one sequence: each token's logprob (0 at the root) and, with top-k, `top`. */
export interface TeacherScores {
  logprobs: number[];
  top?: TopLogprobs;
}

/** What the trainer needs of a teacher: its scores of each sequence. */
export interface Teacher {
  readonly url: string;
  /** The most likely tokens per position each score carries in `top` (0: none, the sampled tokens only). */
  readonly topK: number;
  score(sequences: readonly LogprobsSequence[]): Promise<TeacherScores[]>;
  /** Starts scoring sequences a later update will ask for (a teacher without it scores on demand only). */
  prefetch?(sequences: readonly LogprobsSequence[]): void;
  /** Since the last call: the sequences updates asked for, and how many had been scored ahead. */
  takeFigures?(): PrefetchFigures;
}

export interface RemoteTeacherOptions {
  /** Each position's most likely tokens to fetch as well (0: none). */
  topK?: number;
  /** Tokens per request (sequences are never split); default 16,384, 4,096 with top-k. */
  maxTokensPerRequest?: number;
  timeoutMs?: number;
}

const VocabReplySchema = z.object({ pieces: z.array(z.string()) });
const ErrorReplySchema = z.object({ error: z.object({ message: z.string() }) });

export class RemoteTeacher implements Teacher {
  readonly url: string;
  readonly topK: number;
  private readonly maxTokens: number;
  private readonly timeoutMs: number;

  constructor(
    url: string,
    private readonly token: string,
    opts: RemoteTeacherOptions = {},
  ) {
    this.url = url.replace(/\/+$/, '');
    this.topK = opts.topK ?? 0;
    this.maxTokens = opts.maxTokensPerRequest ?? (this.topK > 0 ? 4096 : 16_384);
    this.timeoutMs = opts.timeoutMs ?? 300_000;
  }

  private async request(path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(`${this.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(this.timeoutMs),
    }).catch((err: unknown) => {
      throw new Error(`teacher ${this.url}${path}: ${err instanceof Error ? err.message : String(err)}`);
    });
    const json: unknown = await res.json().catch(() => null);
    if (!res.ok) {
      const why = ErrorReplySchema.safeParse(json);
      throw new Error(
        `teacher ${this.url}${path} answered ${res.status}: ${why.success ? why.data.error.message : 'no error body'}`,
      );
    }
    return json;
  }

  async score(sequences: readonly LogprobsSequence[]): Promise<TeacherScores[]> {
    const out: TeacherScores[] = [];
    const topK = this.topK > 0 ? { topK: this.topK } : {};
    for (const batch of batchByTokens(sequences, this.maxTokens)) {
      const reply = LogprobsResultSchema.parse(await this.request('/swarm/v1/logprobs', { sequences: batch, ...topK }));
      out.push(...checkedScores(batch, reply.logprobs, this.topK > 0 ? (reply.top ?? null) : undefined));
    }
    return out;
  }

  /** The teacher's vocabulary: every token id decoded alone, in id order. */
  async vocabulary(): Promise<string[]> {
    return VocabReplySchema.parse(await this.request('/swarm/v1/vocab')).pieces;
  }
}

/**
 * The scores of `batch` from a reply, each sequence's rows one per token (throws on a short or long
 * reply); `top` undefined: not asked for, null: asked for and missing.
 */
function checkedScores(
  batch: readonly LogprobsSequence[],
  logprobs: number[][],
  top: TopLogprobs[] | null | undefined,
): TeacherScores[] {
  if (top === null) throw new Error('teacher returned no top-k logprobs (an older worker? it needs topK support)');
  if (logprobs.length !== batch.length || (top && top.length !== batch.length))
    throw new Error(`teacher returned ${logprobs.length} sequences of logprobs for ${batch.length}`);
  return batch.map((s, i) => {
    const n = s.tokenIds.length;
    const t = top?.[i];
    if (logprobs[i]!.length !== n || (t && (t.ids.length !== n || t.logprobs.length !== n)))
      throw new Error(`teacher returned ${logprobs[i]!.length} logprobs for ${n} tokens`);
    return t ? { logprobs: logprobs[i]!, top: t } : { logprobs: logprobs[i]! };
  });
}

/** Why two vocabularies differ (null: the same tokenizer, as far as token ids go). */
export function vocabularyMismatch(student: readonly string[], teacher: readonly string[]): string | null {
  if (student.length !== teacher.length)
    return `the student's vocabulary has ${student.length} tokens, the teacher's ${teacher.length}`;
  const i = student.findIndex((piece, k) => piece !== teacher[k]);
  return i < 0
    ? null
    : `token id ${i} is ${JSON.stringify(student[i])} for the student, ${JSON.stringify(teacher[i])} for the teacher`;
}

/** Refuses a teacher whose tokenizer differs from the student's (throws a message naming both). */
export async function checkSameTokenizer(
  teacher: RemoteTeacher,
  studentPieces: () => Promise<string[]>,
): Promise<void> {
  const [mine, theirs] = await Promise.all([studentPieces(), teacher.vocabulary()]);
  const why = vocabularyMismatch(mine, theirs);
  if (why)
    throw new Error(
      `the teacher at ${teacher.url} does not share the student's tokenizer (${why}): on-policy ` +
        'distillation compares logprobs of the same token ids, so it needs the same tokenizer',
    );
}
