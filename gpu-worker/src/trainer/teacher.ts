// The teacher of on-policy distillation (docs/learned-rewards.md, "On-policy distillation"): another
// worker, reached over its admin API, that scores token sequences with its engine's `logprobs`
// (POST /swarm/v1/logprobs). Requests are batched by tokens and each has a deadline. Before a run
// trains on a teacher, `checkSameTokenizer` compares the two vocabularies piece by piece: token ids
// only mean the same text under the same tokenizer, so a mismatch refuses the start.
import { z } from 'zod';
import { batchByTokens } from '../../../src/shared/distill';
import type { LogprobsSequence } from '../../../src/shared/engine-protocol';

/** How many of the updates' teacher sequences had been scored ahead (teacher-prefetch.ts). */
export interface PrefetchFigures {
  sequences: number;
  prefetched: number;
}

/** What the trainer needs of a teacher: the logprob of every token of each sequence (0 at the root). */
export interface Teacher {
  readonly url: string;
  logprobs(sequences: readonly LogprobsSequence[]): Promise<number[][]>;
  /** Starts scoring sequences a later update will ask for (a teacher without it scores on demand only). */
  prefetch?(sequences: readonly LogprobsSequence[]): void;
  /** Since the last call: the sequences updates asked for, and how many had been scored ahead. */
  takeFigures?(): PrefetchFigures;
}

export interface RemoteTeacherOptions {
  /** Tokens per request (sequences are never split). */
  maxTokensPerRequest?: number;
  timeoutMs?: number;
}

const LogprobsReplySchema = z.object({ logprobs: z.array(z.array(z.number())) });
const VocabReplySchema = z.object({ pieces: z.array(z.string()) });
const ErrorReplySchema = z.object({ error: z.object({ message: z.string() }) });

export class RemoteTeacher implements Teacher {
  readonly url: string;
  private readonly maxTokens: number;
  private readonly timeoutMs: number;

  constructor(
    url: string,
    private readonly token: string,
    opts: RemoteTeacherOptions = {},
  ) {
    this.url = url.replace(/\/+$/, '');
    this.maxTokens = opts.maxTokensPerRequest ?? 16_384;
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

  async logprobs(sequences: readonly LogprobsSequence[]): Promise<number[][]> {
    const out: number[][] = [];
    for (const batch of batchByTokens(sequences, this.maxTokens)) {
      const reply = LogprobsReplySchema.parse(await this.request('/swarm/v1/logprobs', { sequences: batch }));
      if (reply.logprobs.length !== batch.length)
        throw new Error(`teacher returned ${reply.logprobs.length} sequences of logprobs for ${batch.length}`);
      batch.forEach((s, i) => {
        if (reply.logprobs[i]!.length !== s.tokenIds.length)
          throw new Error(`teacher returned ${reply.logprobs[i]!.length} logprobs for ${s.tokenIds.length} tokens`);
      });
      out.push(...reply.logprobs);
    }
    return out;
  }

  /** The teacher's vocabulary: every token id decoded alone, in id order. */
  async vocabulary(): Promise<string[]> {
    return VocabReplySchema.parse(await this.request('/swarm/v1/vocab')).pieces;
  }
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
