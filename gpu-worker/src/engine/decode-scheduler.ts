// Schedules the server's generations onto the engine in rounds. Every round is one batched
// engine `generate` over all active rows; requests that arrive while a round decodes join the
// next round. Rows that stream are decoded in chunks that double in size (first tokens quickly,
// O(log n) rounds), so a streaming client sees text as it is generated and new requests join the
// running batch at the next chunk boundary; without streaming rows a round runs every row to
// completion (one prefill per call). A chunk boundary
// costs a re-prefill, because the engine keeps no KV cache between calls — true per-token
// streaming needs an incremental engine method (see the README's "Swarm server" section).
//
// `reserve()` announces a request that is still being rendered: a round about to start waits
// for reservations made before it (their render calls are ahead of its generate in the engine's
// queue anyway), so concurrent arrivals share one batch instead of the first going alone.
//
// `pause()` stops admitting rows and resolves once the running ones finish, so a policy update
// never lands in the middle of a generation: every call is sampled by exactly one weight version.
import { deriveSeed } from '../../../src/shared/prng';
import type { GenerateRequest, GenerateResult } from '../../../src/shared/engine-protocol';
import type { SamplingRequest } from './sampling-request';

export interface DecodeEngine {
  generate(requests: GenerateRequest[]): Promise<GenerateResult>;
  decode(sequences: number[][]): Promise<string[]>;
}

export interface DecodeRequest extends SamplingRequest {
  /** Streaming: called after each round with the visible text so far. */
  onText?: (text: string) => void;
  /** Polled at round boundaries; a cancelled row is dropped and its promise rejected. */
  cancelled?: () => boolean;
}

export interface DecodeResult {
  tokenIds: number[];
  logprobs: number[];
  finishReason: 'stop' | 'length';
  /** The generated text (without a matched stop string and what follows it). */
  text: string;
  weightVersion: number;
  rounds: number;
  /** Largest batch this row was decoded in. */
  maxBatch: number;
  /** Engine time spent on the rounds (and decodes) this row took part in. */
  engineMs: number;
}

export class DecodeCancelledError extends Error {
  constructor() {
    super('the request was cancelled');
    this.name = 'DecodeCancelledError';
  }
}

export interface SchedulerOptions {
  maxBatch?: number;
  /** First chunk of a chunked row; later chunks double up to maxChunk. */
  firstChunk?: number;
  maxChunk?: number;
  now?: () => number;
  /** Longest wait for reserved requests before a round starts anyway. */
  reservationWaitMs?: number;
}

interface Row {
  req: DecodeRequest;
  tokenIds: number[];
  logprobs: number[];
  rounds: number;
  maxBatch: number;
  engineMs: number;
  weightVersion: number | null;
  text: string;
  finishReason: 'stop' | 'length' | null;
  resolve: (r: DecodeResult) => void;
  reject: (e: Error) => void;
}

export interface RowPlanInput {
  remaining: number;
  generated: number;
  chunked: boolean;
}

/**
 * Tokens each row may generate this round. Without chunked rows every row runs to completion;
 * otherwise all rows stop at the smallest chunk boundary of a chunked row (chunk = tokens so far,
 * clamped to [firstChunk, maxChunk]: 8, 8, 16, 32, 64, 64, …).
 */
export function planRound(rows: readonly RowPlanInput[], firstChunk: number, maxChunk: number): number[] {
  const chunked = rows.filter((r) => r.chunked);
  if (chunked.length === 0) return rows.map((r) => r.remaining);
  const horizon = Math.min(...chunked.map((r) => Math.min(maxChunk, Math.max(firstChunk, r.generated))));
  return rows.map((r) => Math.min(r.remaining, horizon));
}

/** The text a client may see: cut before a stop string, holding back a possible stop-string start. */
export function visibleText(text: string, stop: readonly string[] | undefined): { text: string; stopped: boolean } {
  if (!stop || stop.length === 0) return { text, stopped: false };
  let cut = -1;
  for (const s of stop) {
    const i = text.indexOf(s);
    if (i >= 0 && (cut < 0 || i < cut)) cut = i;
  }
  if (cut >= 0) return { text: text.slice(0, cut), stopped: true };
  let hold = 0;
  for (const s of stop) {
    for (let k = Math.min(s.length - 1, text.length); k > hold; k--) {
      if (text.endsWith(s.slice(0, k))) {
        hold = k;
        break;
      }
    }
  }
  return { text: text.slice(0, text.length - hold), stopped: false };
}

export class DecodeScheduler {
  private queue: Row[] = [];
  private active: Row[] = [];
  private running = false;
  private paused = false;
  private idleWaiters: (() => void)[] = [];
  /** Bumped by failAll, so a round that was running then does not bring its rows back. */
  private epoch = 0;
  private readonly maxBatch: number;
  private readonly firstChunk: number;
  private readonly maxChunk: number;
  private readonly now: () => number;
  private reservations = new Set<number>();
  private nextReservation = 0;
  private reservationWaiters: (() => void)[] = [];
  private readonly reservationWaitMs: number;
  /** Counters for status and the benchmark. */
  readonly stats = { rounds: 0, rows: 0, rowRounds: 0, engineMs: 0 };

  constructor(
    private readonly engine: DecodeEngine,
    opts: SchedulerOptions = {},
  ) {
    this.maxBatch = opts.maxBatch ?? 64;
    this.firstChunk = opts.firstChunk ?? 8;
    this.maxChunk = Math.max(this.firstChunk, opts.maxChunk ?? 64);
    this.now = opts.now ?? (() => performance.now());
    this.reservationWaitMs = opts.reservationWaitMs ?? 2000;
  }

  /** Announces a request that will be submitted soon; call the returned function once it is (or will not be). */
  reserve(): () => void {
    const id = this.nextReservation++;
    this.reservations.add(id);
    return () => {
      if (!this.reservations.delete(id)) return;
      const waiters = this.reservationWaiters;
      this.reservationWaiters = [];
      for (const w of waiters) w();
    };
  }

  /** Waits (bounded) until the reservations made before now are submitted or released. */
  private async awaitEarlierReservations(): Promise<void> {
    const snapshot = this.nextReservation;
    const deadline = this.now() + this.reservationWaitMs;
    const earlier = (): boolean => [...this.reservations].some((id) => id < snapshot);
    while (
      earlier() &&
      this.now() < deadline &&
      this.queue.length + this.active.length < this.maxBatch &&
      !this.paused
    ) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 10);
        this.reservationWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  get pending(): number {
    return this.queue.length + this.active.length;
  }

  submit(req: DecodeRequest): Promise<DecodeResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({
        req,
        tokenIds: [],
        logprobs: [],
        rounds: 0,
        maxBatch: 0,
        engineMs: 0,
        weightVersion: null,
        text: '',
        finishReason: null,
        resolve,
        reject,
      });
      this.kick();
    });
  }

  /** Stops admitting new rows; resolves when the running rows have finished. */
  pause(): Promise<void> {
    this.paused = true;
    if (this.active.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  resume(): void {
    this.paused = false;
    this.kick();
  }

  /** Rejects every queued and running row (engine gone); the scheduler stays usable. */
  failAll(err: Error): void {
    for (const row of [...this.queue, ...this.active]) row.reject(err);
    this.queue = [];
    this.active = [];
    this.epoch += 1;
    this.notifyIdle();
  }

  private kick(): void {
    if (this.running) return;
    this.running = true;
    // Let every request issued in this tick join the round.
    setImmediate(() => void this.loop());
  }

  private notifyIdle(): void {
    if (this.active.length > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private async loop(): Promise<void> {
    try {
      for (;;) {
        await this.awaitEarlierReservations();
        if (!this.paused) this.active.push(...this.queue.splice(0, this.maxBatch - this.active.length));
        this.dropCancelled();
        if (this.active.length === 0) break;
        await this.round();
      }
    } finally {
      this.running = false;
      this.notifyIdle();
      if (!this.paused && this.queue.length > 0) this.kick();
    }
  }

  private dropCancelled(): void {
    const keep: Row[] = [];
    for (const row of this.active) {
      if (row.req.cancelled?.()) row.reject(new DecodeCancelledError());
      else keep.push(row);
    }
    this.active = keep;
    this.queue = this.queue.filter((row) => {
      if (!row.req.cancelled?.()) return true;
      row.reject(new DecodeCancelledError());
      return false;
    });
  }

  private async round(): Promise<void> {
    const rows = this.active;
    const plan = planRound(
      rows.map((r) => ({
        remaining: r.req.maxTokens - r.tokenIds.length,
        generated: r.tokenIds.length,
        chunked: r.req.onText !== undefined,
      })),
      this.firstChunk,
      this.maxChunk,
    );
    const requests: GenerateRequest[] = rows.map((r, i) => ({
      promptIds: r.tokenIds.length === 0 ? r.req.promptIds : [...r.req.promptIds, ...r.tokenIds],
      maxTokens: plan[i]!,
      temperature: r.req.temperature,
      topP: r.req.topP,
      seed: r.rounds === 0 ? r.req.seed : deriveSeed(r.req.seed, `chunk${r.tokenIds.length}`) & 0x7fffffff,
      ...(r.req.stopIds ? { stopIds: r.req.stopIds } : {}),
    }));
    const t0 = this.now();
    const epoch = this.epoch;
    let out: GenerateResult;
    try {
      out = await this.engine.generate(requests);
      if (epoch !== this.epoch) return;
      if (out.results.length !== rows.length)
        throw new Error(`engine returned ${out.results.length} generations for ${rows.length} requests`);
    } catch (err) {
      if (epoch === this.epoch) this.failRows(rows, err);
      return;
    }
    const ms = this.now() - t0;
    this.stats.rounds += 1;
    this.stats.rowRounds += rows.length;
    this.stats.engineMs += ms;
    rows.forEach((row, i) => {
      const g = out.results[i]!;
      row.tokenIds.push(...g.tokenIds);
      row.logprobs.push(...g.logprobs);
      row.text = row.rounds === 0 ? g.text : row.text + g.text;
      row.rounds += 1;
      row.maxBatch = Math.max(row.maxBatch, rows.length);
      row.engineMs += ms;
      row.weightVersion =
        row.weightVersion === null ? out.weightVersion : Math.min(row.weightVersion, out.weightVersion);
      if (g.finishReason === 'stop') row.finishReason = 'stop';
      else if (row.tokenIds.length >= row.req.maxTokens || g.tokenIds.length < plan[i]!) row.finishReason = 'length';
    });
    try {
      await this.refreshTexts(rows);
      await this.applyStops(rows.filter((r) => r.finishReason !== null));
    } catch (err) {
      if (epoch === this.epoch) this.failRows(rows, err);
      return;
    }
    if (epoch !== this.epoch) return;
    const finished = rows.filter((r) => r.finishReason !== null);
    for (const row of rows) {
      if (row.req.onText) row.req.onText(visibleText(row.text, row.req.stop).text);
    }
    this.active = rows.filter((r) => r.finishReason === null);
    this.stats.rows += finished.length;
    for (const row of finished) {
      row.resolve({
        tokenIds: row.tokenIds,
        logprobs: row.logprobs,
        finishReason: row.finishReason!,
        text: row.text,
        weightVersion: row.weightVersion ?? 0,
        rounds: row.rounds,
        maxBatch: row.maxBatch,
        engineMs: row.engineMs,
      });
    }
  }

  private failRows(rows: Row[], err: unknown): void {
    const error = err instanceof Error ? err : new Error(String(err));
    for (const row of rows) row.reject(error);
    this.active = this.active.filter((r) => !rows.includes(r));
  }

  /** Exact text of multi-round rows (chunk texts may split a UTF-8 character); stop-string rows end early. */
  private async refreshTexts(rows: Row[]): Promise<void> {
    const need = rows.filter(
      (r) => (r.rounds > 1 && (r.finishReason !== null || r.req.onText)) || (r.req.stop && r.finishReason === null),
    );
    if (need.length === 0) return;
    const t0 = this.now();
    const texts = await this.engine.decode(need.map((r) => r.tokenIds));
    const ms = this.now() - t0;
    need.forEach((r, i) => {
      r.text = texts[i] ?? r.text;
      r.engineMs += ms;
      if (r.finishReason === null && visibleText(r.text, r.req.stop).stopped) r.finishReason = 'stop';
    });
  }

  /** Cuts rows whose text contains a stop string after the first token that completes it. */
  private async applyStops(rows: Row[]): Promise<void> {
    for (const row of rows) {
      const vis = visibleText(row.text, row.req.stop);
      if (!vis.stopped) continue;
      const prefixes = row.tokenIds.map((_, k) => row.tokenIds.slice(0, k + 1));
      const texts = await this.engine.decode(prefixes);
      const k = texts.findIndex((t) => visibleText(t, row.req.stop).stopped);
      if (k >= 0) {
        row.tokenIds = row.tokenIds.slice(0, k + 1);
        row.logprobs = row.logprobs.slice(0, k + 1);
      }
      row.text = vis.text;
      row.finishReason = 'stop';
    }
  }
}
