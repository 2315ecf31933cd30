// The OpenAI-compatible routes: `GET /v1/models` and `POST /v1/chat/completions` (JSON or SSE
// streaming with content and tool-call deltas, then `[DONE]`). Authorised by an episode key.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { ChatCompletionRequestSchema, IdSchema } from '../../../src/shared/swarm-protocol';
import { checkChatBody } from '../../../src/shared/request-limits';
import type { StreamEvent } from '../../../src/shared/tool-call-stream';
import { prepareRequest } from '../swarm/chat-request';
import type { CompletionOutcome, CompletionService } from '../swarm/completions';
import { asSwarmError, badRequest, SwarmError, unauthorized } from '../errors';
import type { TokenMatcher } from '../swarm/keys';
import type { Swarm } from '../swarm/swarm';
import { callerOf } from './auth';
import { parseBody } from './http';
import { chunkDelta } from './sse-chunks';

export interface OpenAiRouteDeps {
  swarm: Swarm;
  completions: CompletionService;
  matcher: TokenMatcher;
}

export function agentOf(req: FastifyRequest): string | undefined {
  const raw = req.headers['x-agentjet-agent'];
  if (raw === undefined) return undefined;
  const parsed = IdSchema.max(64).safeParse(raw);
  if (!parsed.success)
    throw badRequest('invalid_agent_header', 'X-AgentJet-Agent must be one printable name of at most 64 characters');
  return parsed.data;
}

/** An SSE writer started on the first chunk, so errors before it are ordinary JSON answers. */
class SseWriter {
  started = false;
  constructor(
    private readonly reply: FastifyReply,
    private readonly res: ServerResponse,
  ) {}

  send(payload: unknown): void {
    if (!this.started) {
      this.started = true;
      this.reply.hijack();
      this.res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
    }
    if (!this.res.writableEnded && !this.res.destroyed) this.res.write(`data: ${JSON.stringify(payload)}\n\n`);
  }

  done(): void {
    if (!this.res.writableEnded && !this.res.destroyed) this.res.end('data: [DONE]\n\n');
  }

  fail(err: SwarmError): void {
    this.send(err.toBody());
    if (!this.res.writableEnded) this.res.end();
  }
}

export function registerOpenAiRoutes(app: FastifyInstance, deps: OpenAiRouteDeps): void {
  const { swarm, completions, matcher } = deps;

  app.get('/v1/models', async (req) => {
    const caller = callerOf(req.headers, matcher);
    if (caller.kind === 'key') swarm.episodeForKey(caller.key);
    return { object: 'list', data: [{ id: swarm.modelName, object: 'model', created: 0, owned_by: 'agentjet' }] };
  });

  app.post('/v1/chat/completions', async (req, reply) => {
    const caller = callerOf(req.headers, matcher);
    if (caller.kind !== 'key')
      throw unauthorized(
        'episode_key_required',
        'chat completions need an episode key (the apiKey of a claimed episode), not the admin or join token',
      );
    const ep = swarm.episodeForKey(caller.key);
    const body = parseBody(ChatCompletionRequestSchema, checkChatBody(req.body));
    const agent = agentOf(req);
    const prepared = prepareRequest(body, swarm.training, ep.kind);
    const clientGone = new AbortController();
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) clientGone.abort();
    });
    // The fingerprint names the weight version that sampled the reply (streams: the current one
    // when the first chunk goes out, which is after sampling began).
    const base = (o: { id: string; created: number; weightVersion?: number }) => ({
      id: o.id,
      created: o.created,
      model: swarm.modelName,
      system_fingerprint: `wv${o.weightVersion ?? swarm.weightVersion}`,
    });

    if (!prepared.stream) {
      const out = await completions.complete(ep, prepared, { signal: clientGone.signal, ...(agent ? { agent } : {}) });
      void reply
        .header('x-agentjet-engine-ms', out.engineMs.toFixed(2))
        .header('x-agentjet-weight-version', String(out.weightVersion));
      return {
        ...base(out),
        object: 'chat.completion',
        choices: [
          { index: 0, message: { ...out.message, refusal: null }, logprobs: null, finish_reason: out.finishReason },
        ],
        usage: out.usage,
      };
    }

    const sse = new SseWriter(reply, reply.raw);
    const id = `chatcmpl-${ep.id.slice(3)}_${ep.nextCallIndex}`;
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta: object, finish: string | null = null) => ({
      ...base({ id, created }),
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
    // Token by token: content as generated, a tool call's id and name once known, then its arguments.
    const onEvent = (e: StreamEvent): void => {
      const delta = chunkDelta(e);
      if (!delta) return;
      if (!sse.started) sse.send(chunk({ role: 'assistant', content: '' }));
      sse.send(chunk(delta));
    };
    let out: CompletionOutcome;
    try {
      out = await completions.complete(ep, prepared, {
        onEvent,
        signal: clientGone.signal,
        ...(agent ? { agent } : {}),
      });
    } catch (err) {
      if (!sse.started) throw err;
      sse.fail(asSwarmError(err));
      return reply;
    }
    if (!sse.started) sse.send(chunk({ role: 'assistant', content: '' }));
    sse.send(chunk({}, out.finishReason));
    if (prepared.includeUsage)
      sse.send({ ...base({ id, created }), object: 'chat.completion.chunk', choices: [], usage: out.usage });
    sse.done();
    return reply;
  });
}
