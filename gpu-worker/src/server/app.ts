// Builds the swarm server's Fastify instance: connection limits and timeouts, authentication
// before any body is read, strict JSON parsing and errors, the OpenAI routes, the swarm and
// control routes. The events WebSocket attaches to its HTTP server after listen.
import Fastify, { type FastifyInstance } from 'fastify';
import type { CompletionService } from '../swarm/completions';
import { verifyEpisodeKey, type TokenMatcher } from '../swarm/keys';
import type { Swarm } from '../swarm/swarm';
import { installEarlyAuth } from './auth';
import { clientErrorHandler, DEFAULT_CONNECTION_LIMITS, httpServerOptions, limitConnectionsPerAddress, type ConnectionLimits } from './connections';
import { frameworkErrorHandler, installHttpBasics, MAX_PARAM_LENGTH } from './http';
import { registerControlRoutes } from './routes-control';
import { registerOpenAiRoutes } from './routes-openai';
import { registerSwarmRoutes } from './routes-swarm';

export interface AppDeps {
  swarm: Swarm;
  completions: CompletionService;
  matcher: TokenMatcher;
  bodyLimit: number;
  publicUrl?: string;
  heartbeatS: number;
  log: (line: string) => void;
  /** Timeouts and the per-address connection bound (defaults: DEFAULT_CONNECTION_LIMITS). */
  limits?: Partial<ConnectionLimits>;
}

export function buildApp(deps: AppDeps): FastifyInstance {
  const limits: ConnectionLimits = { ...DEFAULT_CONNECTION_LIMITS, ...deps.limits };
  // Fastify's own logger stays off: request logs would carry Authorization headers.
  const app = Fastify({
    logger: false, bodyLimit: deps.bodyLimit, forceCloseConnections: true, return503OnClosing: true,
    http: httpServerOptions(limits),
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // No socket inactivity timeout: an answered request may rightly wait long (an `end` waits for
    // its calls, a long generation); a silent client is cut off by the two timeouts above.
    connectionTimeout: 0,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    clientErrorHandler,
    frameworkErrors: frameworkErrorHandler,
  });
  limitConnectionsPerAddress(app.server, limits.maxConnectionsPerAddress);
  const secret = deps.swarm.deps.secret;
  installEarlyAuth(app, deps.matcher, (key) => verifyEpisodeKey(secret, key));
  installHttpBasics(app, deps.bodyLimit, deps.log);
  registerOpenAiRoutes(app, deps);
  registerSwarmRoutes(app, { swarm: deps.swarm, matcher: deps.matcher, heartbeatS: deps.heartbeatS, ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}) });
  registerControlRoutes(app, deps);
  return app;
}
