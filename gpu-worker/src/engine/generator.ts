// The one narrow way the rest of the worker asks for a generation: `generate(request, hooks)` →
// result, with an optional per-delta callback (streaming) and cancellation through an AbortSignal.
// Everything that records a call (the server's completions path, the rollout policy of eval and the
// demo) goes through a Generator; `gateGenerator` backs it with the admission gate
// (engine/admission.ts, in front of the engine's continuous batcher and prefix cache).
import { AdmissionCancelledError, type AdmissionResult, type GenerationGate } from './admission';
import type { SamplingRequest } from './sampling-request';

/** A generation's prompt and sampling settings (the end-of-turn ids are the engine's own). */
export type GenerationRequest = Omit<SamplingRequest, 'stopIds'>;

export interface GenerationDelta {
  /** Visible text appended since the previous delta (stop strings and half characters held back). */
  text: string;
}

export interface GenerationHooks {
  /** Streaming: called as text becomes visible; the concatenated deltas are a prefix of the final `text`. */
  onDelta?: (delta: GenerationDelta) => void;
  /** Aborting drops the generation; its promise rejects with a GenerationCancelledError. */
  signal?: AbortSignal;
}

/** Prefix-cache figures of one generation (filled in by admission layers that keep a KV cache). */
export interface GenerationCacheStats {
  promptTokens: number;
  cachedTokens: number;
}

/** A generation's answer: the gate's, without its queue time; the cache figures where a KV cache kept them. */
export type GenerationResult = Omit<AdmissionResult, 'queueMs' | 'cache'> & { cache?: GenerationCacheStats };

export interface Generator {
  generate(request: GenerationRequest, hooks?: GenerationHooks): Promise<GenerationResult>;
}

export class GenerationCancelledError extends Error {
  constructor() {
    super('the generation was cancelled');
    this.name = 'GenerationCancelledError';
  }
}

/** A Generator behind the admission gate. */
export function gateGenerator(gate: Pick<GenerationGate, 'generate'>): Generator {
  return {
    async generate(request, hooks = {}) {
      const { signal, onDelta } = hooks;
      try {
        const r = await gate.generate(
          {
            promptIds: request.promptIds,
            maxTokens: request.maxTokens,
            temperature: request.temperature,
            topP: request.topP,
            seed: request.seed,
            ...(request.stop ? { stop: request.stop } : {}),
            ...(request.affinity !== undefined ? { affinity: request.affinity } : {}),
          },
          {
            ...(onDelta ? { onDelta: (d: { text: string }) => d.text !== '' && onDelta({ text: d.text }) } : {}),
            ...(signal ? { signal } : {}),
          },
        );
        return {
          tokenIds: r.tokenIds,
          logprobs: r.logprobs,
          finishReason: r.finishReason,
          text: r.text,
          weightVersion: r.weightVersion,
          ...(r.versionSpans ? { versionSpans: r.versionSpans } : {}),
          engineMs: r.engineMs,
          cache: r.cache,
        };
      } catch (err) {
        throw err instanceof AdmissionCancelledError ? new GenerationCancelledError() : err;
      }
    },
  };
}
