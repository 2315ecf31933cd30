// The OpenAI-compatible routes: `GET /v1/models` and `POST /v1/chat/completions` (JSON or SSE
// streaming with content and tool-call deltas, then `[DONE]`). Authorised by an episode key.
import type { FastifyInstance } from 'fastify';
import { checkChatBody } from '../../../src/shared/request-limits';
import { ChatCompletionRequestSchema } from '../../../src/shared/swarm-protocol';
import type { StreamEvent } from '../../../src/shared/tool-call-stream';
import { chatCompletionId, type CallIds, type CompletionOutcome } from '../swarm/completions';
import type { Swarm } from '../swarm/swarm';
import {
  completeJson,
  completeStreamed,
  episodeOfRequest,
  prepareCall,
  type ApiRouteDeps,
  type EventEncoder,
} from './api-call';
import { callerOf } from './auth';
import { parseBody } from './http';
import { onRoute } from './route-table';
import { chunkDelta } from './sse-chunks';

export type OpenAiRouteDeps = ApiRouteDeps;

/**
 * The fields every chat completion object carries. The fingerprint names the weight version that
 * sampled the reply (streams: the current one when a chunk goes out, which is after sampling began).
 */
const baseOf = (swarm: Swarm, o: { id: string; created: number; weightVersion?: number }) => ({
  id: o.id,
  created: o.created,
  model: swarm.modelName,
  system_fingerprint: `wv${o.weightVersion ?? swarm.weightVersion}`,
});

/** The chunk stream of one call: the role chunk with the first delta, content and tool-call deltas, the finish. */
function chunkEncoder(swarm: Swarm, ids: CallIds, includeUsage: boolean): EventEncoder<object> {
  const id = chatCompletionId(ids);
  const chunk = (delta: object, finish: string | null = null): object => ({
    ...baseOf(swarm, { id, created: ids.created }),
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  let started = false;
  // Token by token: content as generated, a tool call's id and name once known, then its arguments.
  const withRole = (chunks: object[]): object[] => {
    if (started) return chunks;
    started = true;
    return [chunk({ role: 'assistant', content: '' }), ...chunks];
  };
  return {
    opening: () => [],
    push: (e: StreamEvent) => {
      const delta = chunkDelta(e);
      return delta ? withRole([chunk(delta)]) : [];
    },
    finish: (out: CompletionOutcome) =>
      withRole([
        chunk({}, out.finishReason),
        ...(includeUsage
          ? [
              {
                ...baseOf(swarm, { id, created: ids.created }),
                object: 'chat.completion.chunk',
                choices: [],
                usage: out.usage,
              },
            ]
          : []),
      ]),
    error: (err) => err.toBody(),
    done: '[DONE]',
  };
}

export function registerOpenAiRoutes(app: FastifyInstance, deps: OpenAiRouteDeps): void {
  const { swarm, matcher } = deps;

  onRoute(app, 'models', async (req) => {
    const caller = callerOf(req.headers, matcher);
    if (caller.kind === 'key') swarm.episodeForKey(caller.key);
    return { object: 'list', data: [{ id: swarm.modelName, object: 'model', created: 0, owned_by: 'agentjet' }] };
  });

  onRoute(app, 'chatCompletions', async (req, reply) => {
    const ep = episodeOfRequest(req, deps, 'the chat completions API');
    const body = parseBody(ChatCompletionRequestSchema, checkChatBody(req.body));
    const call = prepareCall(req, reply, deps, ep, body);
    if (!call.prepared.stream) {
      const out = await completeJson(reply, deps, call);
      return {
        ...baseOf(swarm, out),
        object: 'chat.completion',
        choices: [
          { index: 0, message: { ...out.message, refusal: null }, logprobs: null, finish_reason: out.finishReason },
        ],
        usage: out.usage,
      };
    }
    const includeUsage = call.prepared.includeUsage;
    await completeStreamed(reply, deps, call, (ids) => chunkEncoder(swarm, ids, includeUsage));
    return reply;
  });
}
