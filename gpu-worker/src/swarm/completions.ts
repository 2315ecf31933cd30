// One chat completion of an episode: the episode's bookkeeping (the call counts in flight, so the
// episode cannot end or expire under it; recorded calls join its timelines and the counters) around
// the one call-recording path (rollout/record-call.ts), with the server's seeds and its errors.
import type { ChatMessage } from '../../../src/shared/chat';
import { createPrng, deriveSeed, type Prng } from '../../../src/shared/prng';
import type { ChatCompletionUsage } from '../../../src/shared/swarm-protocol';
import type { StreamEvent } from '../../../src/shared/tool-call-stream';
import { GenerationCancelledError } from '../engine/generator';
import { CallRefusedError, recordCall, type RecordDeps, type RecordedCall } from '../rollout/record-call';
import type { PreparedRequest } from './chat-request';
import { badRequest, clientClosed } from '../errors';
import type { Episode } from './episodes';

export interface CompletionHooks {
  /** Streaming: each event as it becomes sendable (tool_choice "required": all at the end). */
  onEvent?: (event: StreamEvent) => void;
  /** Aborted (the client went away): the call is neither finished nor recorded. */
  signal?: AbortSignal;
  agent?: string;
}

export interface CompletionOutcome {
  id: string;
  created: number;
  message: ChatMessage;
  finishReason: 'stop' | 'length' | 'tool_calls';
  usage: ChatCompletionUsage;
  /** Engine time of this call (render + its generate rounds), for the overhead benchmark. */
  engineMs: number;
  weightVersion: number;
  malformedToolCalls: number;
  /** Attempts made to satisfy tool_choice "required" / a named function. */
  attempts: number;
}

/** What a completion needs of the swarm: the episode's call bookkeeping. */
export interface CallLedger {
  /** A call starts: counted in flight; returns its index in the episode. */
  beginCall(ep: Episode): number;
  /** The call finished: recorded (`call`) or not (failed, cancelled). */
  endCall(ep: Episode, call: RecordedCall | null): void;
}

/** The completion's wire id (also the prefix of its tool-call ids). */
export const completionIdPrefix = (episodeId: string, callIndex: number): string =>
  `${episodeId.slice(3)}_${callIndex}`;

function asClientError(err: unknown): unknown {
  if (err instanceof CallRefusedError) return badRequest(err.code, err.message);
  if (err instanceof GenerationCancelledError) return clientClosed();
  return err;
}

export class CompletionService {
  private readonly prng: Prng;

  constructor(
    private readonly ledger: CallLedger,
    private readonly record: RecordDeps,
    seed = 0,
  ) {
    this.prng = createPrng(seed);
  }

  async complete(ep: Episode, req: PreparedRequest, hooks: CompletionHooks = {}): Promise<CompletionOutcome> {
    const callIndex = this.ledger.beginCall(ep);
    let rec: RecordedCall | null = null;
    try {
      const idPrefix = completionIdPrefix(ep.id, callIndex);
      const seedFor = (attempt: number): number =>
        req.seed === null
          ? this.prng.int(0, 2 ** 31 - 1)
          : attempt === 0
            ? req.seed
            : deriveSeed(req.seed, `attempt${attempt}`) & 0x7fffffff;
      rec = await recordCall(
        this.record,
        {
          episodeId: ep.id,
          callIndex,
          agent: hooks.agent ?? 'default',
          idPrefix,
          messages: req.messages,
          tools: req.tools,
          toolChoice: req.toolChoice,
          parseTools: req.toolChoice.mode !== 'none' && req.tools !== null,
          maxTokens: req.maxTokens,
          temperature: req.temperature,
          topP: req.topP,
          stop: req.stop,
          seedFor,
        },
        { ...(hooks.onEvent ? { onEvent: hooks.onEvent } : {}), ...(hooks.signal ? { signal: hooks.signal } : {}) },
      ).catch((err: unknown) => {
        throw asClientError(err);
      });
      return {
        id: `chatcmpl-${idPrefix}`,
        created: Math.floor(rec.timeline.createdAt / 1000),
        message: rec.message,
        finishReason: rec.finishReason,
        usage: {
          prompt_tokens: rec.promptTokens,
          completion_tokens: rec.completionTokens,
          total_tokens: rec.promptTokens + rec.completionTokens,
          prompt_tokens_details: { cached_tokens: rec.cachedTokens },
        },
        engineMs: rec.engineMs,
        weightVersion: rec.weightVersion,
        malformedToolCalls: rec.malformedToolCalls,
        attempts: rec.attempts,
      };
    } finally {
      this.ledger.endCall(ep, rec);
    }
  }
}
