// A chat policy backed by the engine, for playing episodes in-process (eval, the demo, benchmarks):
// each call goes through the one call-recording path (recordCall) and is handed on token-exactly
// (prompt ids + spans, sampled ids + raw logprobs) for training and inspection.
import type { ChatMessage, Tool } from '../../../src/shared/chat';
import type { Policy } from '../../../src/shared/episode';
import type { Timeline } from '../../../src/shared/timeline/index';
import { callIdPrefix, recordCall, type RecordDeps } from './record-call';

export type { EngineCaller } from './record-call';

export interface Sampling {
  maxTokens: number;
  temperature: number;
  topP?: number;
}

/** One recorded LLM call: a timeline plus how many tool-call blocks failed to parse. */
export interface CallRecord extends Timeline {
  malformedToolCalls: number;
}

export interface EnginePolicyOptions {
  sampling: Sampling;
  /** A fresh seed per call (e.g. from a seeded PRNG), for reproducible sampling. */
  nextSeed: () => number;
  /** The episode the calls belong to (also the prefix of tool-call ids). */
  episodeId: string;
  agent?: string;
  onCall: (call: CallRecord) => void;
}

export function enginePolicy(deps: RecordDeps, opts: EnginePolicyOptions): Policy {
  let calls = 0;
  return async (messages: ChatMessage[], tools: Tool[]): Promise<ChatMessage> => {
    const callIndex = calls++;
    const seed = opts.nextSeed();
    const rec = await recordCall(deps, {
      episodeId: opts.episodeId,
      callIndex,
      agent: opts.agent ?? 'default',
      idPrefix: callIdPrefix(opts.episodeId, callIndex),
      messages,
      tools: tools.length > 0 ? tools : null,
      toolChoice: { mode: 'auto' },
      parseTools: true,
      maxTokens: opts.sampling.maxTokens,
      temperature: opts.sampling.temperature,
      topP: opts.sampling.topP ?? 1,
      seedFor: () => seed,
    });
    opts.onCall({ ...rec.timeline, malformedToolCalls: rec.malformedToolCalls });
    return rec.message;
  };
}
