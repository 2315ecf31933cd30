// Builds the swarm server's Fastify instance: strict JSON parsing and errors, the inference routes
// (OpenAI chat completions and Responses, Anthropic Messages),
// the swarm and control routes. The events WebSocket attaches to its HTTP server after listen.
import Fastify, { type FastifyInstance } from 'fastify';
import type { CompletionService } from '../swarm/completions';
import type { TokenMatcher } from '../swarm/keys';
import type { Swarm } from '../swarm/swarm';
import { installHttpBasics } from './http';
import { registerControlRoutes } from './routes-control';
import { registerMessagesRoutes } from './routes-messages';
import { registerOpenAiRoutes } from './routes-openai';
import { registerResponsesRoutes } from './routes-responses';
import { registerSwarmRoutes } from './routes-swarm';

export interface AppDeps {
  swarm: Swarm;
  completions: CompletionService;
  matcher: TokenMatcher;
  bodyLimit: number;
  publicUrl?: string;
  heartbeatS: number;
  log: (line: string) => void;
}

export function buildApp(deps: AppDeps): FastifyInstance {
  // Fastify's own logger stays off: request logs would carry Authorization headers.
  const app = Fastify({ logger: false, bodyLimit: deps.bodyLimit, forceCloseConnections: true, return503OnClosing: true });
  installHttpBasics(app, deps.bodyLimit, deps.log);
  registerOpenAiRoutes(app, deps);
  registerResponsesRoutes(app, deps);
  registerMessagesRoutes(app, deps);
  registerSwarmRoutes(app, { swarm: deps.swarm, matcher: deps.matcher, heartbeatS: deps.heartbeatS, ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}) });
  registerControlRoutes(app, deps);
  return app;
}
