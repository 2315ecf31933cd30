// What the Responses and Messages routes share around one completion: the episode the key names,
// the prepared request (through the chat path's `prepareRequest`, so limits, tool choice and
// forced train sampling are the same), the client-gone watch, and running the call either as JSON
// or as a stream of named SSE events translated from the server's streaming events.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChatCompletionRequest } from '../../../src/shared/swarm-protocol';
import type { StreamEvent } from '../../../src/shared/tool-call-stream';
import { prepareRequest, type PreparedRequest } from '../swarm/chat-request';
import type { CompletionHooks, CompletionOutcome, CompletionService } from '../swarm/completions';
import type { Episode } from '../swarm/episodes';
import { SwarmError, unauthorized } from '../errors';
import type { TokenMatcher } from '../swarm/keys';
import type { Swarm } from '../swarm/swarm';
import { callerOf } from './auth';
import { agentOf } from './routes-openai';
import { NamedSseWriter } from './sse';

export interface ApiRouteDeps {
  swarm: Swarm;
  completions: CompletionService;
  matcher: TokenMatcher;
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
  /** `<episode>_<call index>`: the id stem of this call's response and items. */
  idPrefix: string;
  created: number;
  hooks: Omit<CompletionHooks, 'onEvent'>;
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
  const clientGone = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) clientGone.abort();
  });
  return {
    ep,
    prepared,
    idPrefix: `${ep.id.slice(3)}_${ep.nextCallIndex}`,
    created: Math.floor(Date.now() / 1000),
    hooks: { signal: clientGone.signal, ...(agent ? { agent } : {}) },
  };
}

/**
 * The completion hooks that feed `onEvent` the server's streaming events. Today they adapt the
 * completion service's `onDelta`; once it emits events itself this becomes `{ onEvent }`.
 */
export function streamHooks(onEvent: (e: StreamEvent) => void): Pick<CompletionHooks, 'onEvent'> {
  return { onEvent };
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
export interface EventEncoder<E extends { type: string }> {
  /** Events sent before the first translated one (e.g. response.created). */
  opening(): E[];
  push(e: StreamEvent): E[];
  finish(out: CompletionOutcome): E[];
  error(err: SwarmError): E;
}

/**
 * Runs the call as a stream of named SSE events. The stream starts with the first event, so a
 * call refused before any output (bad request, context too long) is an ordinary JSON error.
 * Returns the outcome, or null when the call failed after the stream had started.
 */
export async function completeStreamed<E extends { type: string }>(
  reply: FastifyReply,
  deps: ApiRouteDeps,
  call: ApiCall,
  enc: EventEncoder<E>,
): Promise<CompletionOutcome | null> {
  const sse = new NamedSseWriter(reply, reply.raw);
  // Built first (their sequence numbers come first), sent with the first translated event.
  const opening = enc.opening();
  const send = (events: readonly E[]): void => {
    if (events.length === 0) return;
    if (!sse.started) for (const e of opening) sse.send(e.type, e);
    for (const e of events) sse.send(e.type, e);
  };
  let out: CompletionOutcome;
  try {
    out = await deps.completions.complete(call.ep, call.prepared, {
      ...call.hooks,
      ...streamHooks((e) => send(enc.push(e))),
    });
  } catch (err) {
    if (!sse.started) throw err;
    const e =
      err instanceof SwarmError
        ? err
        : new SwarmError(500, 'server_error', 'internal', err instanceof Error ? err.message : String(err));
    const event = enc.error(e);
    sse.send(event.type, event);
    sse.end();
    return null;
  }
  send(enc.finish(out));
  sse.end();
  return out;
}
