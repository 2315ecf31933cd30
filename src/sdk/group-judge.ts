// Group judges for reward code (docs/learned-rewards.md, "Group judges"): the rollouts of one task group
// go to any OpenAI-compatible chat-completions endpoint with a rubric, and each gets a relative score in
// [0, 1] (RULER-style; the prompt and its parsing are src/shared/group-judge.ts). Scores are cached by
// (model, rubric, conversations); each request has a timeout; a budget caps the requests this judge
// makes. When the judge fails — unreachable, timed out, an error status, a reply it cannot parse, the
// budget spent — every rollout gets the neutral score and the failure is counted, so a reward never
// waits on or crashes with the judge.
//
//   const judge = new GroupJudge({ baseUrl: 'http://localhost:8000/v1', model: 'judge', rubric });
//   const { scores } = await judge.scoreGroup(group.map((g) => ({ messages: g.history })));
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { judgePrompt, parseJudgeReply, type JudgedRollout } from '../shared/group-judge';

export interface GroupJudgeOptions {
  /** The OpenAI-compatible API's base URL, up to `/v1` (`…/chat/completions` is appended). */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** What makes a trajectory better, for this task. */
  rubric: string;
  /** Per request (default 60 s). */
  timeoutMs?: number;
  /** Requests this judge may make (default unlimited); beyond it, neutral scores. */
  maxCalls?: number;
  /** The score every rollout gets when the judge fails (default 0.5). */
  neutralScore?: number;
  maxTokens?: number;
  temperature?: number;
  /** Groups whose scores are kept (default 256, least recently used dropped). */
  cacheSize?: number;
}

export interface JudgeVerdict {
  scores: number[];
  /** false: the neutral scores of a failure (`error` says why). */
  judged: boolean;
  cached: boolean;
  error?: string;
}

export interface JudgeStats {
  calls: number;
  cacheHits: number;
  failures: number;
  overBudget: number;
}

const CompletionSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable() }) })).min(1),
});

export class GroupJudge {
  readonly stats: JudgeStats = { calls: 0, cacheHits: 0, failures: 0, overBudget: 0 };
  private readonly cache = new Map<string, Promise<number[]>>();
  private readonly url: string;

  constructor(private readonly o: GroupJudgeOptions) {
    this.url = `${o.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  }

  /** One score per rollout, in order (a group of one or none is scored without asking). */
  async scoreGroup(rollouts: readonly JudgedRollout[]): Promise<JudgeVerdict> {
    const neutral = this.o.neutralScore ?? 0.5;
    if (rollouts.length <= 1) return { scores: rollouts.map(() => neutral), judged: false, cached: false };
    const key = createHash('sha256')
      .update(JSON.stringify([this.o.model, this.o.rubric, rollouts.map((r) => r.messages)]))
      .digest('hex');
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key); // most recently used last
      this.cache.set(key, hit);
      this.stats.cacheHits++;
      return { scores: await hit, judged: true, cached: true };
    }
    if (this.stats.calls >= (this.o.maxCalls ?? Number.POSITIVE_INFINITY)) {
      this.stats.overBudget++;
      return this.failed(rollouts.length, 'the judge budget is spent');
    }
    this.stats.calls++;
    const pending = this.ask(rollouts);
    this.remember(key, pending);
    try {
      return { scores: await pending, judged: true, cached: false };
    } catch (err) {
      this.cache.delete(key);
      this.stats.failures++;
      return this.failed(rollouts.length, err instanceof Error ? err.message : String(err));
    }
  }

  private failed(n: number, error: string): JudgeVerdict {
    return { scores: new Array<number>(n).fill(this.o.neutralScore ?? 0.5), judged: false, cached: false, error };
  }

  private remember(key: string, scores: Promise<number[]>): void {
    this.cache.set(key, scores);
    while (this.cache.size > (this.o.cacheSize ?? 256)) {
      const oldest = this.cache.keys().next().value;
      if (oldest === undefined) break;
      this.cache.delete(oldest);
    }
  }

  private async ask(rollouts: readonly JudgedRollout[]): Promise<number[]> {
    const res = await fetch(this.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(this.o.apiKey ? { authorization: `Bearer ${this.o.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: this.o.model,
        messages: judgePrompt(this.o.rubric, rollouts),
        max_tokens: this.o.maxTokens ?? 1024,
        temperature: this.o.temperature ?? 0,
      }),
      signal: AbortSignal.timeout(this.o.timeoutMs ?? 60_000),
    });
    if (!res.ok) throw new Error(`the judge answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    const parsed = CompletionSchema.safeParse(await res.json().catch(() => null));
    if (!parsed.success) throw new Error('the judge did not answer a chat completion');
    return parseJudgeReply(parsed.data.choices[0]!.message.content ?? '', rollouts.length);
  }
}
