// One chat completion of an episode: render with the model's own template, generate through the
// admission gate (the engine batches it with every other call in flight), parse Hermes tool calls,
// and record the call token-exactly as a Timeline of the episode (prompt ids + spans, sampled ids +
// raw logprobs, weight version). Streaming callers get StreamEvents as tokens arrive: content
// deltas, a tool call's id and name once known, its arguments as generated. tool_choice "required"
// (or a named function) resamples up to 3 times, so such a streamed reply is sent at the end.
import type { ChatMessage } from '../../../src/shared/chat';
import { createPrng, deriveSeed, type Prng } from '../../../src/shared/prng';
import { RemoteError } from '../../../src/shared/result';
import type { ChatCompletionUsage } from '../../../src/shared/swarm-protocol';
import type { Timeline } from '../../../src/shared/timeline/index';
import { HermesStreamParser, parseStream, type ParsedAssistantText, type StreamEvent } from '../../../src/shared/tool-call-stream';
import type { AdmissionResult } from '../engine/admission';
import type { PreparedRequest } from './chat-request';
import { badRequest, SwarmError } from './errors';
import type { Episode } from './episodes';
import type { Swarm } from './swarm';

export interface CompletionHooks {
  /** Streaming: each event as it becomes sendable (tool_choice "required": all at the end). */
  onEvent?: (event: StreamEvent) => void;
  /** Aborted (the client went away): the engine request is cancelled; the call is not recorded. */
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

/** Attempts for tool_choice "required" or a named function before the reply is returned as is. */
export const TOOL_CHOICE_ATTEMPTS = 3;

function engineInputError(err: unknown): unknown {
  if (err instanceof RemoteError && err.type !== 'internal' && err.type !== 'state') {
    return badRequest(err.type === 'context_overflow' ? 'context_length_exceeded' : 'invalid_messages', `the engine refused the request: ${err.message}`);
  }
  return err;
}

export class CompletionService {
  private readonly prng: Prng;

  constructor(
    private readonly swarm: Swarm,
    seed = 0,
  ) {
    this.prng = createPrng(seed);
  }

  async complete(ep: Episode, req: PreparedRequest, hooks: CompletionHooks = {}): Promise<CompletionOutcome> {
    const s = this.swarm;
    const callIndex = s.episodes.beginCall(ep, s.now());
    s.touchClient(ep.clientId);
    let recorded = false;
    try {
      const t0 = performance.now();
      const rendered = await s.engine.call('render', { messages: req.messages, tools: req.tools, addGenerationPrompt: true }).catch((err: unknown) => {
        throw engineInputError(err);
      });
      const renderMs = performance.now() - t0;
      const context = s.engine.info?.contextLength ?? Number.MAX_SAFE_INTEGER;
      if (rendered.tokenIds.length >= context) {
        throw badRequest('context_length_exceeded', `the prompt is ${rendered.tokenIds.length} tokens; the model's context is ${context} tokens`);
      }
      const maxTokens = Math.min(req.maxTokens, context - rendered.tokenIds.length);
      const idPrefix = `${ep.id.slice(3)}_${callIndex}`;
      const parseTools = req.toolChoice.mode !== 'none' && req.tools !== null;
      const insist = req.toolChoice.mode === 'required';
      const emit = (events: StreamEvent[]): void => events.forEach((e) => hooks.onEvent?.(e));
      let result: AdmissionResult | null = null;
      let parsed: ParsedAssistantText = { content: null, toolCalls: [], malformed: 0 };
      let attempts = 0;
      while (attempts < (insist ? TOOL_CHOICE_ATTEMPTS : 1)) {
        const seed = req.seed === null ? this.prng.int(0, 2 ** 31 - 1) : attempts === 0 ? req.seed : deriveSeed(req.seed, `attempt${attempts}`) & 0x7fffffff;
        attempts += 1;
        const parser = hooks.onEvent && !insist ? new HermesStreamParser(idPrefix, parseTools) : null;
        let streamed = '';
        result = await s.scheduler
          .generate(
            { promptIds: rendered.tokenIds, maxTokens, temperature: req.temperature, topP: req.topP, seed, stop: req.stop },
            {
              ...(parser ? { onDelta: (d: { text: string }) => { streamed += d.text; emit(parser.push(d.text)); } } : {}),
              ...(hooks.signal ? { signal: hooks.signal } : {}),
            },
          )
          .catch((err: unknown) => {
            throw engineInputError(err);
          });
        if (parser) {
          // the deltas add up to the reply's text; should they fall short, send the rest
          if (result.text.startsWith(streamed)) emit(parser.push(result.text.slice(streamed.length)));
          emit(parser.finish());
          parsed = parser.result();
        } else {
          parsed = parseStream(result.text, idPrefix, parseTools).parsed;
        }
        const name = req.toolChoice.name;
        if (!insist || parsed.toolCalls.some((c) => name === undefined || c.function.name === name)) break;
      }
      if (!result) throw new SwarmError(500, 'server_error', 'internal', 'no generation was made');
      if (hooks.onEvent && insist) emit(parseStream(result.text, idPrefix, parseTools).events);

      const message: ChatMessage =
        parsed.toolCalls.length > 0 ? { role: 'assistant', content: parsed.content, tool_calls: parsed.toolCalls } : { role: 'assistant', content: parsed.content ?? '' };
      const created = Date.now();
      const timeline: Timeline = {
        id: `${ep.id}/${callIndex}`, episodeId: ep.id, agent: hooks.agent ?? 'default', callIndex, messages: req.messages, tools: req.tools,
        promptIds: rendered.tokenIds, promptSpans: rendered.spans, outputIds: result.tokenIds, outputLogprobs: result.logprobs,
        finishReason: result.finishReason, output: message, weightVersion: result.weightVersion, createdAt: created,
      };
      s.episodes.endCall(ep, s.now(), timeline, parsed.malformed);
      recorded = true;
      s.counters.calls += 1;
      s.counters.completionTokens += result.tokenIds.length;
      s.counters.malformedToolCalls += parsed.malformed;
      s.clients.count(ep.clientId, 'calls');
      s.clients.count(ep.clientId, 'completionTokens', result.tokenIds.length);
      return {
        id: `chatcmpl-${idPrefix}`, created: Math.floor(created / 1000), message,
        finishReason: parsed.toolCalls.length > 0 ? 'tool_calls' : result.finishReason,
        usage: {
          prompt_tokens: rendered.tokenIds.length, completion_tokens: result.tokenIds.length, total_tokens: rendered.tokenIds.length + result.tokenIds.length,
          prompt_tokens_details: { cached_tokens: result.cache.cachedTokens },
        },
        engineMs: renderMs + result.engineMs, weightVersion: result.weightVersion, malformedToolCalls: parsed.malformed, attempts,
      };
    } finally {
      if (!recorded) s.episodes.endCall(ep, s.now());
    }
  }
}
