// `POST /v1/messages`: the Anthropic Messages API over the same completion path as chat
// completions (translated by src/shared/messages), JSON or named SSE events (message_start …
// message_stop). Authorised by an episode key, sent as `x-api-key` (what the Anthropic SDKs do)
// or `Authorization: Bearer`.
import type { FastifyInstance } from 'fastify';
import { MessagesRequestSchema } from '../../../src/shared/messages/schema';
import { MessagesStream } from '../../../src/shared/messages/streaming';
import { checkMessagesBody, messageObject, messagesToChat } from '../../../src/shared/messages/translate';
import { blocksOfMessage } from '../../../src/shared/stream-blocks';
import type { CallIds } from '../swarm/completions';
import { completeJson, completeStreamed, episodeOfRequest, prepareCall, type ApiRouteDeps } from './api-call';
import { parseBody } from './http';
import { onRoute } from './route-table';

/** Anthropic's error types by HTTP status (what its SDKs expect in a stream's error event). */
function anthropicErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 503) return 'overloaded_error';
  return status >= 500 ? 'api_error' : 'invalid_request_error';
}

export function registerMessagesRoutes(app: FastifyInstance, deps: ApiRouteDeps): void {
  onRoute(app, 'messages', async (req, reply) => {
    const ep = episodeOfRequest(req, deps, 'the Messages API');
    checkMessagesBody(req.body);
    const body = parseBody(MessagesRequestSchema, req.body);
    const call = prepareCall(req, reply, deps, ep, messagesToChat(body));
    const idOf = (ids: CallIds): string => `msg_${ids.idPrefix}`;
    const model = deps.swarm.modelName;

    if (!call.prepared.stream) {
      const out = await completeJson(reply, deps, call);
      return messageObject(idOf(out.call), model, blocksOfMessage(out.message, false), out.finishReason, out.usage);
    }
    await completeStreamed(reply, deps, call, (ids) => {
      const stream = new MessagesStream(idOf(ids), model);
      return {
        opening: () => [],
        push: (e) => stream.push(e),
        finish: (o) => stream.finish(o.finishReason, o.usage).events,
        error: (err) => MessagesStream.error(anthropicErrorType(err.status), err.message),
        name: (e) => e.type,
      };
    });
    return reply;
  });
}
