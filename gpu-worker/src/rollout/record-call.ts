// The one call-recording path: render a conversation with the model's own template, generate
// through a Generator (the engine batches it with every other call in flight), parse the model
// family's tool calls and reasoning (tool-parsers/; insisting on one for tool_choice "required" /
// a named function), stream content and tool-call deltas, and
// record the call token-exactly as a Timeline (prompt ids + spans, sampled ids + raw logprobs,
// weight version). The server's completions and the rollout policy of eval and the demo both call it.
import type { ChatMessage, Tool } from '../../../src/shared/chat';
import type { RenderResult } from '../../../src/shared/engine-protocol';
import { RemoteError } from '../../../src/shared/result';
import type { Timeline } from '../../../src/shared/timeline/index';
import type { StreamEvent } from '../../../src/shared/tool-call-stream';
import {
  createReplyParser,
  DEFAULT_PARSERS,
  parseReply,
  type ParserChoice,
  type ReplySpec,
} from '../../../src/shared/tool-parsers/registry';
import type { ParsedReply, ReplyEvent } from '../../../src/shared/tool-parsers/types';
import type { EngineCaller } from '../engine/engine-caller';
import type { GenerationResult, Generator } from '../engine/generator';

export type { EngineCaller };

export interface RecordDeps {
  /** Renders the conversation (the EngineHost, or a fake engine in tests). */
  engine: EngineCaller;
  generator: Generator;
  /** The model's context length (prompt + output). */
  contextLength: () => number;
  /** Timestamp source (ms) of the recorded timeline. */
  now?: () => number;
  /** The model family's tool-call and reasoning parsers (default: Hermes, no reasoning). */
  parsers?: ParserChoice;
}

export type ToolChoiceMode = { mode: 'auto' | 'none' | 'required'; name?: string };

/**
 * The stem of a call's ids (`<episode>_<call index>`, an `ep_` episode id without its `ep_`): its
 * tool-call ids, and the completion, response and message ids the server's APIs give it.
 */
export const callIdPrefix = (episodeId: string, callIndex: number): string =>
  `${episodeId.startsWith('ep_') ? episodeId.slice(3) : episodeId}_${callIndex}`;

export interface CallSpec {
  episodeId: string;
  callIndex: number;
  agent: string;
  /** Prefix of the parsed tool calls' ids (`callIdPrefix` of the episode and call index). */
  idPrefix: string;
  messages: ChatMessage[];
  tools: Tool[] | null;
  toolChoice: ToolChoiceMode;
  /** Whether tool-call blocks in the output become tool calls. */
  parseTools: boolean;
  maxTokens: number;
  temperature: number;
  topP: number;
  stop?: readonly string[];
  /** The sampling seed of attempt `n` (0-based). */
  seedFor: (attempt: number) => number;
  /** Routing key of the call (rollout replicas): its task group, else its episode. */
  routeKey?: string;
}

export interface RecordHooks {
  /** Streaming: each event as it becomes sendable (all at the end for `required` tool choices, which may resample). */
  onEvent?: (event: StreamEvent) => void;
  signal?: AbortSignal;
}

export interface RecordedCall {
  timeline: Timeline;
  message: ChatMessage;
  finishReason: 'stop' | 'length' | 'tool_calls';
  promptTokens: number;
  completionTokens: number;
  /** Engine time of this call (render + its generation). */
  engineMs: number;
  weightVersion: number;
  malformedToolCalls: number;
  /** Attempts made to satisfy tool_choice "required" / a named function. */
  attempts: number;
  /** Prompt tokens the engine's prefix cache supplied (0 without one). */
  cachedTokens: number;
}

/** The engine refused the input (bad messages, prompt over the context): the caller's mistake. */
export class CallRefusedError extends Error {
  constructor(
    readonly code: 'context_length_exceeded' | 'invalid_messages',
    message: string,
  ) {
    super(message);
    this.name = 'CallRefusedError';
  }
}

/** Attempts for tool_choice "required" or a named function before the reply is returned as is. */
export const TOOL_CHOICE_ATTEMPTS = 3;

function refused(err: unknown): unknown {
  if (err instanceof RemoteError && err.type !== 'internal' && err.type !== 'state') {
    return new CallRefusedError(
      err.type === 'context_overflow' ? 'context_length_exceeded' : 'invalid_messages',
      `the engine refused the request: ${err.message}`,
    );
  }
  return err;
}

interface Sampled {
  result: GenerationResult;
  parsed: ParsedReply;
  attempts: number;
}

async function sample(
  deps: RecordDeps,
  spec: CallSpec,
  prompt: RenderResult,
  maxTokens: number,
  hooks: RecordHooks,
): Promise<Sampled> {
  const insist = spec.toolChoice.mode === 'required';
  const emit = (events: readonly ReplyEvent[]): void => events.forEach((e) => hooks.onEvent?.(e));
  const choice = deps.parsers ?? DEFAULT_PARSERS;
  const replySpec: ReplySpec = { idPrefix: spec.idPrefix, parseTools: spec.parseTools, tools: spec.tools };
  let out: Sampled | null = null;
  for (let attempt = 0; attempt < (insist ? TOOL_CHOICE_ATTEMPTS : 1); attempt++) {
    // Streamed as generated (the family's parser: content, a tool call's name once known, its arguments).
    const parser = hooks.onEvent && !insist ? createReplyParser(choice, replySpec) : null;
    let streamed = '';
    const onDelta = parser
      ? (d: { text: string }) => {
          streamed += d.text;
          emit(parser.push(d.text));
        }
      : undefined;
    const result = await deps.generator
      .generate(
        {
          promptIds: prompt.tokenIds,
          maxTokens,
          temperature: spec.temperature,
          topP: spec.topP,
          seed: spec.seedFor(attempt),
          ...(spec.stop ? { stop: spec.stop } : {}),
          affinity: spec.routeKey ?? spec.episodeId,
        },
        { ...(onDelta ? { onDelta } : {}), ...(hooks.signal ? { signal: hooks.signal } : {}) },
      )
      .catch((err: unknown) => {
        throw refused(err);
      });
    let parsed: ParsedReply;
    if (parser) {
      // the deltas add up to the reply's text; should they fall short, the rest goes out now
      if (result.text.startsWith(streamed)) emit(parser.push(result.text.slice(streamed.length)));
      emit(parser.finish());
      parsed = parser.result();
    } else {
      parsed = parseReply(choice, replySpec, result.text).parsed;
    }
    out = { result, parsed, attempts: attempt + 1 };
    const name = spec.toolChoice.name;
    if (!insist || parsed.toolCalls.some((c) => name === undefined || c.function.name === name)) break;
  }
  if (!out) throw new Error('no generation was made');
  if (hooks.onEvent && insist) emit(parseReply(choice, replySpec, out.result.text).events);
  return out;
}

/** Records one LLM call; throws CallRefusedError for input the engine refuses. */
export async function recordCall(deps: RecordDeps, spec: CallSpec, hooks: RecordHooks = {}): Promise<RecordedCall> {
  const t0 = performance.now();
  const rendered = await deps.engine
    .call('render', { messages: spec.messages, tools: spec.tools, addGenerationPrompt: true })
    .catch((err: unknown) => {
      throw refused(err);
    });
  const renderMs = performance.now() - t0;
  const context = deps.contextLength();
  if (rendered.tokenIds.length >= context) {
    throw new CallRefusedError(
      'context_length_exceeded',
      `the prompt is ${rendered.tokenIds.length} tokens; the model's context is ${context} tokens`,
    );
  }
  const maxTokens = Math.min(spec.maxTokens, context - rendered.tokenIds.length);
  const { result, parsed, attempts } = await sample(deps, spec, rendered, maxTokens, hooks);
  const message: ChatMessage = {
    ...(parsed.toolCalls.length > 0
      ? { role: 'assistant', content: parsed.content, tool_calls: parsed.toolCalls }
      : { role: 'assistant', content: parsed.content ?? '' }),
    ...(parsed.reasoning !== null ? { reasoning_content: parsed.reasoning } : {}),
  };
  const timeline: Timeline = {
    id: `${spec.episodeId}/${spec.callIndex}`,
    episodeId: spec.episodeId,
    agent: spec.agent,
    callIndex: spec.callIndex,
    messages: spec.messages,
    tools: spec.tools,
    promptIds: rendered.tokenIds,
    promptSpans: rendered.spans,
    outputIds: result.tokenIds,
    outputLogprobs: result.logprobs,
    finishReason: result.finishReason,
    output: message,
    weightVersion: result.weightVersion,
    ...(result.versionSpans ? { versionSpans: result.versionSpans } : {}),
    createdAt: (deps.now ?? Date.now)(),
  };
  return {
    timeline,
    message,
    finishReason: parsed.toolCalls.length > 0 ? 'tool_calls' : result.finishReason,
    promptTokens: rendered.tokenIds.length,
    completionTokens: result.tokenIds.length,
    engineMs: renderMs + result.engineMs,
    weightVersion: result.weightVersion,
    malformedToolCalls: parsed.malformed,
    attempts,
    cachedTokens: result.cache?.cachedTokens ?? 0,
  };
}
