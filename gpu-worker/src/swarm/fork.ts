// Forking a recorded call (POST /swarm/v1/fork, docs/inner-loop.md): K continuations of the
// call's exact prompt token ids — the recorded ids, never a re-render — sampled with the current
// weights through the worker's Generator (so behind the admission gate, paused during updates)
// and recorded nowhere: they are eval calls that never enter training. With an edit, the last
// tool or user message of the prompt gets new content: the recorded ids are kept up to that
// message's span and the rest (the edited message and the generation prompt) is rendered anew.
import type { ForkContinuation, ForkResult } from '../../../src/shared/swarm-inner-loop';
import type { Timeline } from '../../../src/shared/timeline/index';
import type { EngineCaller } from '../engine/engine-caller';
import type { Generator } from '../engine/generator';
import { badRequest } from '../errors';

export interface ForkDeps {
  engine: EngineCaller;
  generator: Generator;
}

export interface ForkSpec {
  k: number;
  temperature: number;
  maxTokens: number;
  edit?: { content: string } | undefined;
  /** Base seed; continuation i samples with seed + i. */
  seed: number;
}

/** The prompt ids of `call` with its last tool/user message's content replaced. */
async function editedPrompt(
  engine: EngineCaller,
  call: Timeline,
  content: string,
): Promise<{ promptIds: number[]; role: 'tool' | 'user' }> {
  const index = call.messages.findLastIndex((m) => m.role === 'tool' || m.role === 'user');
  const target = call.messages[index];
  if (index < 0 || !target || (target.role !== 'tool' && target.role !== 'user'))
    throw badRequest('nothing_to_edit', `call ${call.callIndex} has no tool result or user message to edit`);
  const span = call.promptSpans.find((s) => s.messageIndex === index);
  if (!span) throw badRequest('nothing_to_edit', `call ${call.callIndex} has no prompt span for message ${index}`);
  const messages = call.messages.map((m, i) => (i === index ? { ...m, content } : m));
  const rendered = await engine.call('render', { messages, tools: call.tools, addGenerationPrompt: true });
  const at = rendered.spans.find((s) => s.messageIndex === index);
  if (!at) throw new Error(`the engine's render has no span for message ${index}`);
  return {
    promptIds: [...call.promptIds.slice(0, span.start), ...rendered.tokenIds.slice(at.start)],
    role: target.role,
  };
}

/** K continuations of a recorded call's prompt, side by side with what was recorded. */
export async function forkCall(deps: ForkDeps, call: Timeline, spec: ForkSpec): Promise<ForkResult> {
  const prompt = spec.edit
    ? await editedPrompt(deps.engine, call, spec.edit.content)
    : { promptIds: call.promptIds, role: null };
  const results = await Promise.all(
    Array.from({ length: spec.k }, (_, i) =>
      deps.generator.generate({
        promptIds: prompt.promptIds,
        maxTokens: spec.maxTokens,
        temperature: spec.temperature,
        topP: 1,
        seed: spec.seed + i,
      }),
    ),
  );
  const recordedText = (await deps.engine.call('decode', { sequences: [call.outputIds] })).texts[0] ?? '';
  const continuations: ForkContinuation[] = results.map((r) => ({
    text: r.text,
    tokenIds: r.tokenIds,
    logprobs: r.logprobs,
    finishReason: r.finishReason,
  }));
  return {
    episodeId: call.episodeId,
    callIndex: call.callIndex,
    weightVersion: results.reduce((m, r) => Math.min(m, r.weightVersion), Number.POSITIVE_INFINITY),
    recorded: {
      text: recordedText,
      tokenIds: call.outputIds,
      logprobs: call.outputLogprobs,
      finishReason: call.finishReason,
    },
    edited: prompt.role,
    continuations,
  };
}
