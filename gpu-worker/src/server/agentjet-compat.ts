// What the AgentJet compatibility routes share: their dependencies, the compat layer's own state
// (which clients ended an episode since the last weight sync, when that sync began) and the handler
// wrapper that turns a SwarmError into FastAPI's `{detail}` body.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { engineStatusOf, type EngineStatus } from '../../../src/shared/agentjet/protocol';
import { SwarmError } from '../errors';
import type { TokenMatcher } from '../swarm/keys';
import type { Swarm } from '../swarm/swarm';

/** How long WEIGHT_SYNCING stays visible after a C4/C5 update began (AgentJet's client looks every 5 s). */
export const SYNC_HOLD_MS = 6000;

export interface AgentJetRouteDeps {
  swarm: Swarm;
  matcher: TokenMatcher;
  publicUrl?: string;
  /** Registers the inference routes (chat completions, responses, messages, models) on a scope. */
  registerInference: (scope: FastifyInstance) => void;
}

/** What the compat layer remembers: who ended an episode since the last update, when the last update began. */
export class CompatState {
  readonly endedSinceSync = new Set<string>();
  syncStartedAt: number | null = null;

  constructor(private readonly swarm: Swarm) {}

  status(): EngineStatus {
    const s = this.swarm;
    const sync = s.training.strategy === 'C4' || s.training.strategy === 'C5';
    const holdSync = sync && this.syncStartedAt !== null && s.now() - this.syncStartedAt < SYNC_HOLD_MS;
    return engineStatusOf(s.state, { holdSync, thresholdReached: s.trainer.progress().ready });
  }
}

export function originOf(req: FastifyRequest, publicUrl: string | undefined): string {
  if (publicUrl) return new URL(publicUrl).origin;
  const host =
    typeof req.headers.host === 'string' && /^[A-Za-z0-9.:[\]-]+$/.test(req.headers.host)
      ? req.headers.host
      : 'localhost';
  return `${req.protocol}://${host}`;
}

/** Runs a compat handler; a SwarmError becomes FastAPI's `{detail}` (plus our `error`) with its status. */
export const compat =
  <T>(handler: (req: FastifyRequest, reply: FastifyReply) => Promise<T>) =>
  async (req: FastifyRequest, reply: FastifyReply): Promise<T | FastifyReply> => {
    try {
      return await handler(req, reply);
    } catch (err) {
      if (!(err instanceof SwarmError)) throw err;
      if (err.retryAfterS !== undefined) void reply.header('retry-after', String(err.retryAfterS));
      return reply.status(err.status).send({ detail: err.message, ...err.toBody() });
    }
  };
