// Control routes (admin token): training config, pause / start, checkpoint, reset, and the engine's
// logprobs of given token sequences (what a student worker's distillation asks its teacher). Episode
// listing and inspection, evaluation results and the vocabulary are in routes-inspect.ts.
import type { FastifyInstance } from 'fastify';
import { workerRoutes } from '../../../src/shared/worker-routes';
import { conflict } from '../errors';
import type { TokenMatcher } from '../swarm/keys';
import { resetRun, type ResetDeps } from '../swarm/run-reset';
import type { Swarm } from '../swarm/swarm';
import { requireRole } from './auth';
import { parseBody } from './http';
import { onRoute } from './route-table';

export function registerControlRoutes(
  app: FastifyInstance,
  deps: { swarm: Swarm; matcher: TokenMatcher; reset?: ResetDeps },
): void {
  const { swarm, matcher } = deps;
  const admin = (headers: Parameters<typeof requireRole>[0]): void => void requireRole(headers, matcher, 'admin');

  onRoute(app, 'config', async (req) => {
    admin(req.headers);
    return swarm.training;
  });

  onRoute(app, 'updateConfig', async (req) => {
    admin(req.headers);
    return swarm.updateTraining(parseBody(workerRoutes.updateConfig.body, req.body));
  });

  onRoute(app, 'pause', async (req) => {
    admin(req.headers);
    swarm.pause();
    return { state: swarm.state };
  });

  onRoute(app, 'start', async (req) => {
    admin(req.headers);
    swarm.resume();
    return { state: swarm.state };
  });

  onRoute(app, 'checkpoint', async (req) => {
    admin(req.headers);
    const info = await swarm.trainer.checkpoint('request');
    return { step: info.step, weightVersion: info.weightVersion, path: info.path };
  });

  // A fresh run without restarting the process (campaign trials on remote workers): run-reset.ts.
  onRoute(app, 'reset', async (req) => {
    admin(req.headers);
    const body = parseBody(workerRoutes.reset.body, req.body, true);
    if (!deps.reset)
      throw conflict(
        'reset_unsupported',
        'this server cannot reset its run (it was built without an engine to reload)',
      );
    return resetRun(deps.reset, body);
  });

  onRoute(app, 'logprobs', async (req) => {
    admin(req.headers);
    const { sequences, topK } = parseBody(workerRoutes.logprobs.body, req.body);
    const scored = await swarm.engine.call('logprobs', { sequences, ...(topK ? { topK } : {}) });
    return { ...scored, weightVersion: swarm.weightVersion };
  });
}
