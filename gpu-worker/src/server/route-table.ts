// The server side of the route table (src/shared/worker-routes.ts): a handler is registered at its
// route's method and path, and what it answers is checked against the route's answer schema at compile
// time — the clients parse the same schema on receipt.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { workerRoutes, type RouteReply, type WorkerRouteName } from '../../../src/shared/worker-routes';

export type RouteHandler<K extends WorkerRouteName> = (
  req: FastifyRequest,
  reply: FastifyReply,
) => Promise<RouteReply<K> | FastifyReply>;

/** Registers `handler` for route `name` on `app` (or a prefixed scope of it). */
export function onRoute<K extends WorkerRouteName>(app: FastifyInstance, name: K, handler: RouteHandler<K>): void {
  const r = workerRoutes[name];
  app.route({ method: r.method, url: r.path, handler });
}
