// AgentJet compatibility (`--agentjet-compat`): the HTTP routes AgentJet's Python `SwarmClient`
// calls, with its field names, status strings and failure texts, mapped onto our episodes, batching
// and worker states — served only under `/agentjet/<join-token>` (the client sends no credentials,
// so the path carries them), together with the inference routes under `/agentjet/<join-token>/v1`
// (the client swaps the scheme and host of the base URL it is handed for its server URL). Errors on
// these routes carry FastAPI's `detail` besides our `error` object.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { notFound } from '../errors';
import { CompatState, type AgentJetRouteDeps } from './agentjet-compat';
import { AGENTJET_PREFIX, redactJoinToken } from './agentjet-path';
import { registerEngineRoutes } from './routes-agentjet-engine';
import { registerEpisodeRoutes } from './routes-agentjet-episodes';

const IdParams = z.object({ joinToken: z.string().max(500) });

export function registerAgentJetRoutes(app: FastifyInstance, deps: AgentJetRouteDeps): void {
  const { swarm, matcher } = deps;
  const state = new CompatState(swarm);
  const off = swarm.onEvent((e) => {
    if (e.type === 'state' && e.state === 'updating') {
      state.syncStartedAt = swarm.now();
      state.endedSinceSync.clear();
    }
  });
  app.addHook('onClose', async () => off());

  void app.register(
    async (scope) => {
      // Any token but the join token, however long or malformed, is a route that does not exist.
      scope.addHook('onRequest', async (req) => {
        const params = IdParams.safeParse(req.params);
        if (!params.success || matcher.match(params.data.joinToken) !== 'join')
          throw notFound('route_not_found', `no route ${req.method} ${redactJoinToken(req.url.split('?')[0]!)}`);
      });
      deps.registerInference(scope);
      registerEpisodeRoutes(scope, deps, state);
      registerEngineRoutes(scope, deps, state);
    },
    { prefix: `${AGENTJET_PREFIX}/:joinToken` },
  );
}
