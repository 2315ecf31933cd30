// Builds the swarm server's Fastify instance: strict JSON parsing and errors, the inference routes
// (OpenAI chat completions and Responses, Anthropic Messages), the swarm and control routes, and
// with `agentjetCompat` AgentJet's client routes. The events WebSocket attaches after listen.
import Fastify, { type FastifyInstance } from 'fastify';
import type { CompletionService } from '../swarm/completions';
import type { TokenMatcher } from '../swarm/keys';
import type { Swarm } from '../swarm/swarm';
import { installHttpBasics } from './http';
import { registerAgentJetRoutes } from './routes-agentjet';
import { registerControlRoutes } from './routes-control';
import { registerMessagesRoutes } from './routes-messages';
import { registerOpenAiRoutes } from './routes-openai';
import { registerResponsesRoutes, responseStoreFor } from './routes-responses';
import { registerSwarmRoutes } from './routes-swarm';

export interface AppDeps {
  swarm: Swarm;
  completions: CompletionService;
  matcher: TokenMatcher;
  bodyLimit: number;
  publicUrl?: string;
  heartbeatS: number;
  log: (line: string) => void;
  /** Serve AgentJet's swarm-client routes under /agentjet/<join-token> (`--agentjet-compat`). */
  agentjetCompat?: boolean;
}

export function buildApp(deps: AppDeps): FastifyInstance {
  // Fastify's own logger stays off: request logs would carry Authorization headers.
  const app = Fastify({ logger: false, bodyLimit: deps.bodyLimit, forceCloseConnections: true, return503OnClosing: true });
  installHttpBasics(app, deps.bodyLimit, deps.log);
  const responses = responseStoreFor(app, deps.swarm);
  const inference = (scope: FastifyInstance): void => {
    registerOpenAiRoutes(scope, deps);
    registerResponsesRoutes(scope, deps, responses);
    registerMessagesRoutes(scope, deps);
  };
  inference(app);
  registerSwarmRoutes(app, { swarm: deps.swarm, matcher: deps.matcher, heartbeatS: deps.heartbeatS, ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}) });
  registerControlRoutes(app, deps);
  if (deps.agentjetCompat) registerAgentJetRoutes(app, { swarm: deps.swarm, matcher: deps.matcher, registerInference: inference, ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}) });
  return app;
}
