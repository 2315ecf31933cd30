// Admin routes of the researcher's inner loop (docs/inner-loop.md): quarantine a code version's
// pooled, untrained episodes (journalled; undone by release) and list what is held; fork a recorded
// call into K continuations with the current weights (swarm/fork.ts).
import type { FastifyInstance } from 'fastify';
import { ForkRequestSchema, QuarantineRequestSchema } from '../../../src/shared/swarm-inner-loop';
import { badRequest, notFound } from '../errors';
import type { CompletionService } from '../swarm/completions';
import { forkCall } from '../swarm/fork';
import type { TokenMatcher } from '../swarm/keys';
import type { Swarm } from '../swarm/swarm';
import { requireRole } from './auth';
import { parseBody } from './http';
import { onRoute } from './route-table';

export function registerInnerLoopRoutes(
  app: FastifyInstance,
  deps: { swarm: Swarm; matcher: TokenMatcher; completions: CompletionService },
): void {
  const { swarm, matcher } = deps;
  const admin = (headers: Parameters<typeof requireRole>[0]): void => void requireRole(headers, matcher, 'admin');

  onRoute(app, 'quarantine', async (req) => {
    admin(req.headers);
    const { codeVersion } = parseBody(QuarantineRequestSchema, req.body);
    const episodeIds = await swarm.quarantine(codeVersion);
    return { codeVersion, episodeIds, poolEpisodes: swarm.pooled().length };
  });

  onRoute(app, 'releaseQuarantine', async (req) => {
    admin(req.headers);
    const { codeVersion } = parseBody(QuarantineRequestSchema, req.body);
    const episodeIds = await swarm.release(codeVersion);
    return { codeVersion, episodeIds, poolEpisodes: swarm.pooled().length };
  });

  onRoute(app, 'quarantined', async (req) => {
    admin(req.headers);
    return { quarantined: swarm.quarantinedVersions() };
  });

  onRoute(app, 'fork', async (req) => {
    admin(req.headers);
    const body = parseBody(ForkRequestSchema, req.body);
    const call = body.timeline ?? swarm.getEpisode(body.episodeId).calls[body.callIndex];
    if (!call) throw notFound('call_not_found', `episode ${body.episodeId} has no call ${body.callIndex}`);
    if (call.episodeId !== body.episodeId || call.callIndex !== body.callIndex)
      throw badRequest('timeline_mismatch', 'the timeline given is not the episode and call named');
    return forkCall(deps.completions.record, call, {
      k: body.k,
      temperature: body.temperature,
      maxTokens: body.maxTokens ?? swarm.training.defaultMaxTokens,
      edit: body.edit,
      seed: Math.floor(Math.random() * 2 ** 31),
    });
  });
}
