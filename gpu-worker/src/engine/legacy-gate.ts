// Today's serving behind the admission layer's surface, kept for benchmark comparisons until the
// continuous path has landed: the DecodeScheduler's rounds (static batches, chunked re-prefill for
// streams) over the engine's static path (`configure {mode: "static"}`). `servingMode: 'legacy'`.
import type { ServingStatus, StepServing } from '../../../src/shared/swarm-protocol';
import {
  AdmissionCancelledError,
  type AdmissionHooks,
  type AdmissionRequest,
  type AdmissionResult,
  type GenerationGate,
} from './admission';
import { DecodeCancelledError, visibleText, type DecodeScheduler } from './decode-scheduler';

export class LegacyGate implements GenerationGate {
  readonly mode = 'legacy';
  private counters = { admitted: 0, completed: 0, cancelled: 0, failed: 0 };

  constructor(readonly scheduler: DecodeScheduler) {}

  get pending(): number {
    return this.scheduler.pending;
  }

  async generate(req: AdmissionRequest, hooks: AdmissionHooks = {}): Promise<AdmissionResult> {
    const { signal, onDelta } = hooks;
    if (signal?.aborted) throw new AdmissionCancelledError();
    this.counters.admitted += 1;
    let sent = '';
    const t0 = performance.now();
    try {
      const r = await this.scheduler.submit({
        promptIds: req.promptIds,
        maxTokens: req.maxTokens,
        temperature: req.temperature,
        topP: req.topP,
        seed: req.seed,
        ...(req.stopIds ? { stopIds: req.stopIds } : {}),
        ...(req.stop ? { stop: req.stop } : {}),
        ...(onDelta
          ? {
              onText: (soFar: string) => {
                const clean = soFar.replace(/\uFFFD+$/, '');
                if (clean.length <= sent.length || !clean.startsWith(sent)) return;
                onDelta({ text: clean.slice(sent.length), tokenIds: [] });
                sent = clean;
              },
            }
          : {}),
        ...(signal ? { cancelled: () => signal.aborted } : {}),
      });
      this.counters.completed += 1;
      const text = visibleText(r.text, req.stop).text;
      if (onDelta && text.startsWith(sent) && text.length > sent.length)
        onDelta({ text: text.slice(sent.length), tokenIds: [] });
      return {
        tokenIds: r.tokenIds,
        logprobs: r.logprobs,
        finishReason: r.finishReason,
        text: r.text,
        weightVersion: r.weightVersion,
        engineMs: r.engineMs,
        queueMs: Math.max(0, performance.now() - t0 - r.engineMs),
        cache: { promptTokens: req.promptIds.length, cachedTokens: 0 },
      };
    } catch (err) {
      if (err instanceof DecodeCancelledError) {
        this.counters.cancelled += 1;
        throw new AdmissionCancelledError();
      }
      this.counters.failed += 1;
      throw err;
    }
  }

  pause(): Promise<void> {
    return this.scheduler.pause();
  }

  resume(): void {
    this.scheduler.resume();
  }

  failAll(err: Error): void {
    this.scheduler.failAll(err);
  }

  stats(): ServingStatus {
    return {
      mode: this.mode,
      ...this.counters,
      inFlight: this.scheduler.pending,
      waiting: 0,
      paused: false,
      engine: null,
    };
  }

  stepFigures(): Promise<StepServing | undefined> {
    return Promise.resolve(undefined);
  }
}
