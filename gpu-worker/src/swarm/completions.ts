// One chat completion of an episode: the episode's bookkeeping (the call counts in flight, so the
// episode cannot end or expire under it; recorded calls join its timelines and the counters) around
// the one call-recording path (rollout/record-call.ts), with the server's seeds and its errors. The
// call's index comes from the episode (EpisodeRegistry.beginCall) and its ids from it here, once:
// every API route reads them from `onBegin` or the outcome, never derives them itself.
import type { ChatMessage } from '../../../src/shared/chat';
import { createPrng, deriveSeed, type Prng } from '../../../src/shared/prng';
import type { ChatCompletionUsage } from '../../../src/shared/swarm-protocol';
import type { StreamEvent } from '../../../src/shared/tool-call-stream';
import { GenerationCancelledError } from '../engine/generator';
import { callIdPrefix, CallRefusedError, recordCall, type RecordDeps, type RecordedCall } from '../rollout/record-call';
import type { PreparedRequest } from './chat-request';
import { badRequest, clientClosed } from '../errors';
import type { Episode } from './episodes';

/** One call's place in its episode and the ids the APIs give it. */
export interface CallIds {
  /** The call's index in its episode. */
  index: number;
  /** `<episode>_<index>`: the stem of the call's completion, response, message and tool-call ids. */
  idPrefix: string;
  /** When the call began (Unix seconds). */
  created: number;
}

/** A chat completion's wire id. */
export const chatCompletionId = (call: Pick<CallIds, 'idPrefix'>): string => `chatcmpl-${call.idPrefix}`;

export interface CompletionHooks {
  /** The call began: it has its index and ids (before any output). */
  onBegin?: (call: CallIds) => void;
  /** Streaming: each event as it becomes sendable (tool_choice "required": all at the end). */
  onEvent?: (event: StreamEvent) => void;
  /** Aborted (the client went away): the call is neither finished nor recorded. */
  signal?: AbortSignal;
  agent?: string;
}

export interface CompletionOutcome {
  /** The chat completion id (`chatCompletionId`). */
  id: string;
  call: CallIds;
  /** When the call was recorded (Unix seconds). */
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

function asClientError(err: unknown): unknown {
  if (err instanceof CallRefusedError) return badRequest(err.code, err.message);
  if (err instanceof GenerationCancelledError) return clientClosed();
  return err;
}

export class CompletionService {
  private readonly prng: Prng;

  constructor(
    private readonly ledger: CallLedger,
    /** The engine and Generator the completions use (the fork route samples through them too). */
    readonly record: RecordDeps,
    seed = 0,
  ) {
    this.prng = createPrng(seed);
  }

  async complete(ep: Episode, req: PreparedRequest, hooks: CompletionHooks = {}): Promise<CompletionOutcome> {
    const index = this.ledger.beginCall(ep);
    const call: CallIds = {
      index,
      idPrefix: callIdPrefix(ep.id, index),
      created: Math.floor((this.record.now ?? Date.now)() / 1000),
    };
    let rec: RecordedCall | null = null;
    try {
      hooks.onBegin?.(call);
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
          routeKey: ep.taskId !== undefined ? `task:${ep.taskId}` : ep.id,
          callIndex: index,
          agent: hooks.agent ?? 'default',
          idPrefix: call.idPrefix,
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
        id: chatCompletionId(call),
        call,
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
