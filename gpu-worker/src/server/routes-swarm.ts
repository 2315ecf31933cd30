// The swarm routes clients use (join token): register / heartbeat / leave / agree-sync, claim an
// episode, end or abort it (the join token or the episode's own key), the status snapshot, and
// `GET /health` without credentials.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { IdSchema, type Health } from '../../../src/shared/swarm-protocol';
import { workerRoutes } from '../../../src/shared/worker-routes';
import { notFound, unauthorized, upgradeRequired } from '../errors';
import type { TokenMatcher } from '../swarm/keys';
import type { Swarm } from '../swarm/swarm';
import { callerOf, requireRole } from './auth';
import { clientClosedSignal, parseBody } from './http';
import { onRoute } from './route-table';

export interface SwarmRouteDeps {
  swarm: Swarm;
  matcher: TokenMatcher;
  /** Base URL for claims; default: from the request's Host header. */
  publicUrl?: string;
  heartbeatS: number;
  /** The served certificate's SHA-256 fingerprint (HTTPS), shown in /health. */
  tlsFingerprint?: string;
}

/** The client id of a `/clients/:id/…` route: the router has decoded it once; it is not decoded again. */
function clientIdParam(req: FastifyRequest): string {
  const { id } = parseBody(workerRoutes.heartbeat.params, req.params);
  const parsed = IdSchema.safeParse(id);
  if (!parsed.success)
    throw notFound(
      'client_not_found',
      `no client ${JSON.stringify(id.slice(0, 80))}: not a valid client id (1–200 printable characters)`,
    );
  return parsed.data;
}

/** A client that must already be known (registered, or seen claiming an episode). */
function knownClientParam(req: FastifyRequest, swarm: Swarm): string {
  const clientId = clientIdParam(req);
  if (!swarm.hasClient(clientId)) {
    throw notFound(
      'client_not_found',
      `client ${JSON.stringify(clientId.slice(0, 80))} is not registered (or was pruned after going silent); ` +
        'register it with POST /swarm/v1/clients or claim an episode first',
    );
  }
  return clientId;
}

function baseUrlOf(req: FastifyRequest, publicUrl: string | undefined): string {
  if (publicUrl) return `${publicUrl.replace(/\/+$/, '')}/v1`;
  const host =
    typeof req.headers.host === 'string' && /^[A-Za-z0-9.:[\]-]+$/.test(req.headers.host)
      ? req.headers.host
      : 'localhost';
  return `${req.protocol}://${host}/v1`;
}

/** `GET /health`: engine and journal state, and the served certificate's fingerprint (HTTPS). */
function healthOf(swarm: Swarm, tlsFingerprint: string | undefined): Health {
  const journal = swarm.journalHealth;
  return {
    ok: swarm.state !== 'failed' && journal.ok,
    state: swarm.state,
    step: swarm.step,
    model: swarm.modelName,
    journal: { ...journal },
    ...(tlsFingerprint ? { tls: { fingerprint256: tlsFingerprint } } : {}),
  };
}

/** The WebSocket routes (upgrades.ts serves them) answer a plain GET with a 426 saying so. */
function registerSocketRoutes(app: FastifyInstance): void {
  const sockets = [
    ['events', 'the events stream', 'the admin token'],
    ['replicaAttach', 'where `agentjet replica` hosts attach', 'the replica or admin token'],
  ] as const;
  for (const [name, what, token] of sockets)
    onRoute(app, name, async () => {
      throw upgradeRequired(
        'websocket_required',
        `GET ${workerRoutes[name].path} is a WebSocket (${what}): connect with Upgrade: websocket and ${token}`,
      );
    });
}

export function registerSwarmRoutes(app: FastifyInstance, deps: SwarmRouteDeps): void {
  const { swarm, matcher } = deps;

  /** The join token, or (for its own episode) the episode key. */
  const requireEpisodeAccess = (req: FastifyRequest, episodeId: string): void => {
    const caller = callerOf(req.headers, matcher);
    if (caller.kind === 'token') return;
    if (!swarm.keyNamesEpisode(caller.key, episodeId))
      throw unauthorized('invalid_credentials', "send the join token or this episode's key");
  };

  onRoute(app, 'health', async () => healthOf(swarm, deps.tlsFingerprint));

  onRoute(app, 'registerClient', async (req) => {
    requireRole(req.headers, matcher, 'join');
    const body = parseBody(workerRoutes.registerClient.body, req.body, true);
    const clientId = body.clientId ?? `cl_${randomBytes(6).toString('hex')}`;
    swarm.registerClient(clientId, body.name);
    return { clientId, heartbeatS: deps.heartbeatS };
  });

  onRoute(app, 'clients', async (req) => {
    requireRole(req.headers, matcher, 'join');
    return { clients: swarm.clientList() };
  });

  onRoute(app, 'heartbeat', async (req) => {
    requireRole(req.headers, matcher, 'join');
    const clientId = knownClientParam(req, swarm);
    swarm.touchClient(clientId);
    return { clientId, state: swarm.state, weightVersion: swarm.weightVersion };
  });

  onRoute(app, 'leave', async (req) => {
    requireRole(req.headers, matcher, 'join');
    const clientId = clientIdParam(req);
    swarm.leaveClient(clientId);
    return { clientId, left: true as const };
  });

  onRoute(app, 'agreeSync', async (req) => {
    requireRole(req.headers, matcher, 'join');
    const clientId = clientIdParam(req);
    swarm.agreeSync(clientId);
    return { clientId, agreed: true as const, progress: swarm.trainer.progress() };
  });

  onRoute(app, 'claim', async (req, reply) => {
    requireRole(req.headers, matcher, 'join');
    const body = parseBody(workerRoutes.claim.body, req.body);
    const signal = clientClosedSignal(reply);
    const claim = await swarm.claimHeld(body, baseUrlOf(req, deps.publicUrl), { signal });
    return reply.status(201).send(claim);
  });

  onRoute(app, 'end', async (req) => {
    const { id } = parseBody(workerRoutes.end.params, req.params);
    requireEpisodeAccess(req, id);
    const body = parseBody(workerRoutes.end.body, req.body);
    return swarm.end(id, body);
  });

  onRoute(app, 'abort', async (req) => {
    const { id } = parseBody(workerRoutes.abort.params, req.params);
    requireEpisodeAccess(req, id);
    const body = parseBody(workerRoutes.abort.body, req.body, true);
    return swarm.abort(id, body.reason ?? 'client_abort');
  });

  registerSocketRoutes(app);

  onRoute(app, 'status', async (req) => {
    requireRole(req.headers, matcher, 'join');
    return swarm.status();
  });
}
