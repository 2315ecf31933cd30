// The worker's one admission layer in front of the engine's continuous batcher: a concurrency and
// memory gate. The engine batches, streams and caches by itself (protocol v2), so a generation
// goes to it as soon as it is admitted — one `generate` frame per call, streamed as delta frames —
// and the gate only bounds what is in flight: at most `maxInFlight` generations and at most
// `maxTokensInFlight` tokens (prompt + max new tokens) at once, the oldest waiting call first.
//
// `pause()` is for policy updates: running generations finish on the old weights, new ones wait
// (they are not refused) until `resume()`. `failAll()` rejects everything queued (engine gone or
// worker stopping); calls already in the engine fail with the engine (503 from the host).
// Aborting a call's signal removes it from the queue or cancels it in the engine.
import type {
  CacheStats,
  EngineMethod,
  EngineParams,
  EngineResult,
  GenerateDelta,
  ServingSummary,
} from '../../../src/shared/engine-protocol';
import { RemoteError } from '../../../src/shared/result';
import type { ServingStatus, StepServing } from '../../../src/shared/swarm-protocol';
import type { CallOptions } from './engine-channel';
import type { SamplingRequest } from './sampling-request';
import type { GateHealth } from '../../../src/shared/rollout-health';
import { BusyClock, fraction } from './busy-clock';
import { stepServing } from './serving-stats';

/** The engine calls the gate makes (the EngineHost; a fake engine in tests). */
export interface StreamingEngine {
  call<M extends EngineMethod>(method: M, params: EngineParams[M], opts?: CallOptions): Promise<EngineResult<M>>;
}

export type AdmissionRequest = SamplingRequest;

export interface AdmissionHooks {
  /** Streaming: the visible text appended since the previous delta, and its new tokens. */
  onDelta?: (delta: { text: string; tokenIds: number[] }) => void;
  signal?: AbortSignal;
}

export interface AdmissionResult {
  /** The sampled token ids, exactly as sampled. */
  tokenIds: number[];
  /** Raw (temperature-1) log-probabilities of the sampled tokens. */
  logprobs: number[];
  finishReason: 'stop' | 'length';
  /** The generated text (without a matched stop string and what follows it). */
  text: string;
  /** The weight version that sampled it (the oldest, should it span an update). */
  weightVersion: number;
  /** Weights swapped in mid-generation: [index of the first token sampled by it, weight version] per swap. */
  versionSpans?: [number, number][];
  /** Time from admission to the answer (the engine's time for this call, shared with its batch). */
  engineMs: number;
  /** Time spent waiting at the gate. */
  queueMs: number;
  /** Prefix-cache figures: the prompt's tokens, and how many of them the cache held. */
  cache: { promptTokens: number; cachedTokens: number };
}

export interface AdmissionOptions {
  maxInFlight?: number;
  maxTokensInFlight?: number;
  now?: () => number;
  /** The engine's serving summary of the loaded model (`info.serving`): which path serves it, and why. */
  served?: () => ServingSummary | undefined;
}

export class AdmissionCancelledError extends Error {
  constructor() {
    super('the generation was cancelled');
    this.name = 'AdmissionCancelledError';
  }
}

interface Waiting {
  req: AdmissionRequest;
  hooks: AdmissionHooks;
  tokens: number;
  queuedAt: number;
  admit: () => void;
  reject: (err: Error) => void;
}

export type AdmissionStats = ServingStatus & { tokensInFlight: number };

/** How the worker asks for generations (the Admission gate; fakes in tests). */
export interface GenerationGate {
  generate(req: AdmissionRequest, hooks?: AdmissionHooks): Promise<AdmissionResult>;
  /** New generations wait; resolves once the running ones finished (a policy update). */
  pause(): Promise<void>;
  resume(): void;
  /** Rejects everything waiting (engine gone, worker stopping). */
  failAll(err: Error): void;
  readonly pending: number;
  stats(): ServingStatus;
  /** The engine's prefix-cache and batch figures since the previous call (one per training step). */
  stepFigures(): Promise<StepServing | undefined>;
  /** Busy fractions and weight-sync time since the previous call (one per training step). */
  healthFigures?(): GateHealth;
}

export class Admission implements GenerationGate {
  private readonly maxInFlight: number;
  private readonly maxTokens: number;
  private readonly now: () => number;
  private readonly served: () => ServingSummary | undefined;
  private queue: Waiting[] = [];
  private inFlight = 0;
  private tokensInFlight = 0;
  private paused = false;
  private idleWaiters: (() => void)[] = [];
  private counters = { admitted: 0, completed: 0, cancelled: 0, failed: 0 };
  private engineStats: CacheStats | null = null;
  private statsAt = -Infinity;
  private statsPending = false;
  private stepSnapshot: CacheStats | null = null;
  private readonly busy: BusyClock;
  private readonly pausedClock: BusyClock;

  constructor(
    private readonly engine: StreamingEngine,
    opts: AdmissionOptions = {},
  ) {
    this.maxInFlight = Math.max(1, opts.maxInFlight ?? 128);
    this.maxTokens = Math.max(1, opts.maxTokensInFlight ?? Number.MAX_SAFE_INTEGER);
    this.now = opts.now ?? (() => performance.now());
    this.served = opts.served ?? (() => undefined);
    this.busy = new BusyClock(this.now());
    this.pausedClock = new BusyClock(this.now());
  }

  /** Since the previous call: share of wall time with generations in flight, and paused for updates. */
  healthFigures(): GateHealth {
    const now = this.now();
    const paused = fraction(this.pausedClock.take(now));
    return {
      genBusyFraction: fraction(this.busy.take(now)),
      genIdleWaitFraction: paused,
      trainerBusyFraction: paused,
      syncMs: null,
      replicas: [],
    };
  }

  get pending(): number {
    return this.queue.length + this.inFlight;
  }

  stats(): AdmissionStats {
    const served = this.served();
    return {
      mode: served?.continuous === false ? 'static' : 'continuous',
      ...(served?.fallback ? { fallback: served.fallback } : {}),
      ...this.counters,
      inFlight: this.inFlight,
      waiting: this.queue.length,
      tokensInFlight: this.tokensInFlight,
      paused: this.paused,
      engine: this.engineStats,
    };
  }

  async stepFigures(): Promise<StepServing | undefined> {
    const previous = this.stepSnapshot;
    const now = await this.refreshEngineStatsNow();
    if (!now) return undefined;
    this.stepSnapshot = now;
    return stepServing(previous, now);
  }

  async generate(req: AdmissionRequest, hooks: AdmissionHooks = {}): Promise<AdmissionResult> {
    const { signal } = hooks;
    if (signal?.aborted) throw new AdmissionCancelledError();
    const tokens = req.promptIds.length + req.maxTokens;
    const queuedAt = this.now();
    await new Promise<void>((admit, reject) => {
      const entry: Waiting = { req, hooks, tokens, queuedAt, admit, reject };
      this.queue.push(entry);
      signal?.addEventListener('abort', () => this.dropWaiting(entry), { once: true });
      this.pump();
    });
    const admittedAt = this.now();
    try {
      const out = await this.engine.call(
        'generate',
        { requests: [toEngine(req)], ...(hooks.onDelta ? { stream: true } : {}) },
        {
          ...(hooks.onDelta
            ? { onDelta: (d: GenerateDelta) => hooks.onDelta!({ text: d.text, tokenIds: d.tokenIds }) }
            : {}),
          ...(signal ? { signal } : {}),
        },
      );
      const g = out.results[0];
      if (!g || out.results.length !== 1)
        throw new Error(`engine returned ${out.results.length} generations for 1 request`);
      this.counters.completed += 1;
      return {
        tokenIds: g.tokenIds,
        logprobs: g.logprobs,
        finishReason: g.finishReason,
        text: g.text,
        weightVersion: out.weightVersion,
        ...(g.versionSpans ? { versionSpans: g.versionSpans } : {}),
        engineMs: this.now() - admittedAt,
        queueMs: admittedAt - queuedAt,
        cache: { promptTokens: g.promptTokens ?? req.promptIds.length, cachedTokens: g.cachedTokens ?? 0 },
      };
    } catch (err) {
      if (err instanceof RemoteError && err.type === 'cancelled') {
        this.counters.cancelled += 1;
        throw new AdmissionCancelledError();
      }
      this.counters.failed += 1;
      throw err;
    } finally {
      this.inFlight -= 1;
      this.tokensInFlight -= tokens;
      if (this.inFlight === 0) this.busy.set(false, this.now());
      this.pump();
      this.notifyIdle();
      this.refreshEngineStats();
    }
  }

  /** New generations wait; resolves once the running ones have finished. */
  pause(): Promise<void> {
    this.paused = true;
    this.pausedClock.set(true, this.now());
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  resume(): void {
    this.paused = false;
    this.pausedClock.set(false, this.now());
    this.pump();
  }

  /** Rejects every waiting generation (the engine is gone or the worker stops). */
  failAll(err: Error): void {
    const queued = this.queue;
    this.queue = [];
    for (const w of queued) {
      this.counters.failed += 1;
      w.reject(err);
    }
  }

  /** Fetches the engine's counters now (status snapshots read the last ones). */
  async refreshEngineStatsNow(): Promise<CacheStats | null> {
    try {
      this.engineStats = await this.engine.call('cache_stats', {});
      this.statsAt = this.now();
    } catch {
      // the engine is down or busy restarting: keep the last figures
    }
    return this.engineStats;
  }

  private refreshEngineStats(): void {
    if (this.statsPending || this.now() - this.statsAt < 1000) return;
    this.statsPending = true;
    void this.refreshEngineStatsNow().finally(() => {
      this.statsPending = false;
    });
  }

  private dropWaiting(entry: Waiting): void {
    const i = this.queue.indexOf(entry);
    if (i < 0) return;
    this.queue.splice(i, 1);
    this.counters.cancelled += 1;
    entry.reject(new AdmissionCancelledError());
  }

  private pump(): void {
    while (!this.paused && this.queue.length > 0) {
      const next = this.queue[0]!;
      const fits =
        this.inFlight === 0 ||
        (this.inFlight < this.maxInFlight && this.tokensInFlight + next.tokens <= this.maxTokens);
      if (!fits) return;
      this.queue.shift();
      this.inFlight += 1;
      this.busy.set(true, this.now());
      this.tokensInFlight += next.tokens;
      this.counters.admitted += 1;
      next.admit();
    }
  }

  private notifyIdle(): void {
    if (this.inFlight > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}

function toEngine(req: AdmissionRequest): EngineParams['generate']['requests'][number] {
  return {
    promptIds: req.promptIds,
    maxTokens: req.maxTokens,
    temperature: req.temperature,
    topP: req.topP,
    seed: req.seed,
    ...(req.stopIds ? { stopIds: req.stopIds } : {}),
    ...(req.stop && req.stop.length > 0 ? { stop: [...req.stop] } : {}),
  };
}
