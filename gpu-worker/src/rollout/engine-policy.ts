// A chat policy backed by the engine: render the conversation with the model's own template,
// generate (through the admission gate: the engine batches concurrent calls), parse Hermes tool calls, and record the call
// token-exactly (prompt ids + spans, sampled ids + raw logprobs) for training and inspection.
import type { ChatMessage, Tool } from '../../../src/shared/chat';
import type { EngineMethod, EngineParams, EngineResult } from '../../../src/shared/engine-protocol';
import type { Policy } from '../../../src/shared/episode';
import type { Timeline } from '../../../src/shared/timeline/index';
import { parseToolCalls } from '../../../src/shared/tool-calls';
import type { GenerationGate } from '../engine/admission';

/** The part of EngineProcess a policy needs; tests may pass a fake. */
export interface EngineCaller {
  call<M extends EngineMethod>(method: M, params: EngineParams[M]): Promise<EngineResult<M>>;
}

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
  /** Timestamp source (ms); injected so recordings are reproducible in tests. */
  now?: () => number;
  onCall: (call: CallRecord) => void;
}

export function enginePolicy(engine: EngineCaller, gate: Pick<GenerationGate, 'generate'>, opts: EnginePolicyOptions): Policy {
  let calls = 0;
  return async (messages: ChatMessage[], tools: Tool[]): Promise<ChatMessage> => {
    const toolList = tools.length > 0 ? tools : null;
    const rendered = await engine.call('render', { messages, tools: toolList, addGenerationPrompt: true });
    const generation = await gate.generate({
      promptIds: rendered.tokenIds,
      maxTokens: opts.sampling.maxTokens,
      temperature: opts.sampling.temperature,
      topP: opts.sampling.topP ?? 1,
      seed: opts.nextSeed(),
    });
    const { weightVersion } = generation;
    const callIndex = calls++;
    const parsed = parseToolCalls(generation.text, `${opts.episodeId}_${callIndex}`);
    const output: ChatMessage =
      parsed.toolCalls.length > 0
        ? { role: 'assistant', content: parsed.content, tool_calls: parsed.toolCalls }
        : { role: 'assistant', content: parsed.content ?? '' };
    opts.onCall({
      id: `${opts.episodeId}/${callIndex}`,
      episodeId: opts.episodeId,
      agent: opts.agent ?? 'default',
      callIndex,
      createdAt: (opts.now ?? Date.now)(),
      messages,
      tools: toolList,
      promptIds: rendered.tokenIds,
      promptSpans: rendered.spans,
      outputIds: generation.tokenIds,
      outputLogprobs: generation.logprobs,
      finishReason: generation.finishReason,
      output,
      malformedToolCalls: parsed.malformed,
      weightVersion,
    });
    return output;
  };
}
