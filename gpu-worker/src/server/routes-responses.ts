// `POST /v1/responses`: the OpenAI Responses API over the same completion path as chat
// completions (translated by src/shared/responses), JSON or typed SSE events, and
// `previous_response_id` within the episode (the conversation of each answer is kept until the
// episode finishes). Authorised by an episode key.
import type { FastifyInstance } from 'fastify';
import { ResponsesRequestSchema } from '../../../src/shared/responses/schema';
import { ResponsesStream } from '../../../src/shared/responses/streaming';
import {
  checkResponsesBody,
  responseObject,
  responsesToChat,
  type ResponseMeta,
} from '../../../src/shared/responses/translate';
import { blocksOfMessage } from '../../../src/shared/stream-blocks';
import { badRequest } from '../errors';
import type { CallIds } from '../swarm/completions';
import { ResponseStore } from '../swarm/response-store';
import type { Swarm } from '../swarm/swarm';
import { completeJson, completeStreamed, episodeOfRequest, prepareCall, type ApiRouteDeps } from './api-call';
import { parseBody } from './http';
import { onRoute } from './route-table';

/** The store of an app's responses: an episode's entries go when it finishes; unsubscribed on close. */
export function responseStoreFor(app: FastifyInstance, swarm: Swarm): ResponseStore {
  const store = new ResponseStore();
  const off = swarm.onEvent((e) => {
    if (e.type === 'episode_ended' || e.type === 'episode_aborted' || e.type === 'episode_expired')
      store.dropEpisode(e.episodeId);
  });
  app.addHook('onClose', async () => off());
  return store;
}

/** Registers the route on `app` (or a prefixed scope of it) over `store`, which scopes share. */
export function registerResponsesRoutes(app: FastifyInstance, deps: ApiRouteDeps, store: ResponseStore): void {
  onRoute(app, 'responses', async (req, reply) => {
    const ep = episodeOfRequest(req, deps, 'the Responses API');
    checkResponsesBody(req.body);
    const body = parseBody(ResponsesRequestSchema, req.body);
    const previousId = body.previous_response_id ?? null;
    const previous = previousId === null ? null : store.get(ep.id, previousId);
    if (previous === undefined) {
      throw badRequest(
        'previous_response_not_found',
        `previous response ${JSON.stringify(previousId!.slice(0, 80))} is not one of this episode's responses (previous_response_id continues a response of the same episode)`,
      );
    }
    const { chat, conversation } = responsesToChat(body, previous);
    const call = prepareCall(req, reply, deps, ep, chat);
    const metaOf = (ids: CallIds): ResponseMeta => ({
      id: `resp_${ids.idPrefix}`,
      createdAt: ids.created,
      model: deps.swarm.modelName,
      itemBase: ids.idPrefix,
    });

    if (!call.prepared.stream) {
      const out = await completeJson(reply, deps, call);
      const meta = metaOf(out.call);
      store.put(ep.id, meta.id, [...conversation, out.message]);
      return responseObject(meta, body, {
        blocks: blocksOfMessage(out.message, true),
        finishReason: out.finishReason,
        usage: out.usage,
      });
    }
    const out = await completeStreamed(reply, deps, call, (ids) => {
      const stream = new ResponsesStream(metaOf(ids), body);
      return {
        opening: () => stream.start(),
        push: (e) => stream.push(e),
        finish: (o) => stream.finish({ finishReason: o.finishReason, usage: o.usage }).events,
        error: (err) => stream.error(err.code, err.message),
        name: (e) => e.type,
      };
    });
    if (out) store.put(ep.id, metaOf(out.call).id, [...conversation, out.message]);
    return reply;
  });
}
