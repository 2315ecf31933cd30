// What the inference routes (chat completions, Responses, Messages) share around one completion:
// the episode the key names, the prepared request (through the chat path's `prepareRequest`, so
// limits, tool choice and forced train sampling are the same), the client-gone watch, and running
// the call either as JSON or as a stream of SSE events translated from the server's streaming
// events. The call's index and ids come from the completion service (`CallIds`), never from here.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IdSchema, type ChatCompletionRequest } from '../../../src/shared/swarm-protocol';
import type { StreamEvent } from '../../../src/shared/tool-call-stream';
import { prepareRequest, type PreparedRequest } from '../swarm/chat-request';
import type { CallIds, CompletionHooks, CompletionOutcome, CompletionService } from '../swarm/completions';
import type { Episode } from '../swarm/episodes';
import { asSwarmError, badRequest, type SwarmError, unauthorized } from '../errors';
import type { TokenMatcher } from '../swarm/keys';
import type { Swarm } from '../swarm/swarm';
import { callerOf } from './auth';
import { clientClosedSignal } from './http';
import { SseWriter } from './sse';

export interface ApiRouteDeps {
  swarm: Swarm;
  completions: CompletionService;
  matcher: TokenMatcher;
}

/** The agent a request names in its `X-AgentJet-Agent` header (timelines are recorded per agent). */
export function agentOf(req: FastifyRequest): string | undefined {
  const raw = req.headers['x-agentjet-agent'];
  if (raw === undefined) return undefined;
  const parsed = IdSchema.max(64).safeParse(raw);
  if (!parsed.success)
    throw badRequest('invalid_agent_header', 'X-AgentJet-Agent must be one printable name of at most 64 characters');
  return parsed.data;
}

/** The open episode a request's key names (Bearer or x-api-key). */
export function episodeOfRequest(req: FastifyRequest, deps: ApiRouteDeps, api: string): Episode {
  const caller = callerOf(req.headers, deps.matcher);
  if (caller.kind !== 'key')
    throw unauthorized(
      'episode_key_required',
      `${api} needs an episode key (the apiKey of a claimed episode), not the admin or join token`,
    );
  return deps.swarm.episodeForKey(caller.key);
}

export interface ApiCall {
  ep: Episode;
  prepared: PreparedRequest;
  hooks: Omit<CompletionHooks, 'onEvent' | 'onBegin'>;
}

export function prepareCall(
  req: FastifyRequest,
  reply: FastifyReply,
  deps: ApiRouteDeps,
  ep: Episode,
  chat: ChatCompletionRequest,
): ApiCall {
  const prepared = prepareRequest(chat, deps.swarm.training, ep.kind);
  const agent = agentOf(req);
  return { ep, prepared, hooks: { signal: clientClosedSignal(reply), ...(agent ? { agent } : {}) } };
}

/** Runs the call as one JSON answer, with the engine-time and weight-version headers. */
export async function completeJson(reply: FastifyReply, deps: ApiRouteDeps, call: ApiCall): Promise<CompletionOutcome> {
  const out = await deps.completions.complete(call.ep, call.prepared, call.hooks);
  void reply
    .header('x-agentjet-engine-ms', out.engineMs.toFixed(2))
    .header('x-agentjet-weight-version', String(out.weightVersion));
  return out;
}

/** A stream translator: events per streaming event, the closing events, and an error event. */
export interface EventEncoder<E> {
  /** Events sent before the first translated one (e.g. response.created). */
  opening(): E[];
  push(e: StreamEvent): E[];
  finish(out: CompletionOutcome): E[];
  error(err: SwarmError): E;
  /** The SSE event name of an event (the Responses and Messages APIs); chat chunks go unnamed. */
  name?: (e: E) => string;
  /** The raw data line that closes a stream that completed (chat completions: `[DONE]`). */
  done?: string;
}

/**
 * Runs the call as a stream of SSE events, translated by the encoder made for the call once it has
 * its ids. The stream starts with the first event, so a call refused before any output (bad
 * request, context too long) is an ordinary JSON error. Returns the outcome, or null when the call
 * failed after the stream had started.
 */
export async function completeStreamed<E>(
  reply: FastifyReply,
  deps: ApiRouteDeps,
  call: ApiCall,
  encoderFor: (ids: CallIds) => EventEncoder<E>,
): Promise<CompletionOutcome | null> {
  const sse = new SseWriter(reply);
  // the call's encoder, made once the call has its ids, and its opening events (built first, as
  // their sequence numbers come first; sent with the first translated event)
  const stream: { enc: EventEncoder<E> | null; opening: E[] } = { enc: null, opening: [] };
  const send = (events: readonly E[]): void => {
    const { enc, opening } = stream;
    if (events.length === 0 || !enc) return;
    if (!sse.started) for (const e of opening) sse.send(e, enc.name?.(e));
    for (const e of events) sse.send(e, enc.name?.(e));
  };
  let out: CompletionOutcome;
  try {
    out = await deps.completions.complete(call.ep, call.prepared, {
      ...call.hooks,
      onBegin: (ids) => {
        stream.enc = encoderFor(ids);
        stream.opening = stream.enc.opening();
      },
      onEvent: (e) => send(stream.enc?.push(e) ?? []),
    });
  } catch (err) {
    const { enc } = stream;
    if (!sse.started || !enc) throw err;
    const event = enc.error(asSwarmError(err));
    sse.send(event, enc.name?.(event));
    sse.end();
    return null;
  }
  if (stream.enc) send(stream.enc.finish(out));
  sse.end(stream.enc?.done);
  return out;
}
