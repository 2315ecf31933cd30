// Builds the swarm server's Fastify instance: connection limits and timeouts, authentication
// before any body is read, strict JSON parsing and errors, the inference routes (OpenAI chat
// completions and Responses, Anthropic Messages), the swarm and control routes, and with
// `agentjetCompat` AgentJet's client routes; HTTPS when given a certificate. The events WebSocket
// attaches after listen.
import Fastify, { type FastifyInstance } from 'fastify';
import type { CompletionService } from '../swarm/completions';
import type { TokenMatcher } from '../swarm/keys';
import type { ResetDeps } from '../swarm/run-reset';
import type { Swarm } from '../swarm/swarm';
import { isAgentJetClientPath } from './agentjet-path';
import { installEarlyAuth } from './auth';
import {
  clientErrorHandler,
  DEFAULT_CONNECTION_LIMITS,
  httpServerOptions,
  limitConnectionsPerAddress,
  type ConnectionLimits,
} from './connections';
import { frameworkErrorHandler, installHttpBasics, MAX_PARAM_LENGTH } from './http';
import { registerAgentJetRoutes } from './routes-agentjet';
import { registerControlRoutes } from './routes-control';
import { registerInspectionRoutes } from './routes-inspect';
import { registerMessagesRoutes } from './routes-messages';
import { registerOpenAiRoutes } from './routes-openai';
import { registerResponsesRoutes, responseStoreFor } from './routes-responses';
import { registerSwarmRoutes } from './routes-swarm';
import { httpsServerFactory, type TlsMaterial } from './transport';

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
  /** Serve AgentJet's swarm-client routes under /agentjet/<join-token> (`--agentjet-compat`). */
  agentjetCompat?: boolean;
  /** What POST /swarm/v1/control/reset works with (absent: resets are refused). */
  reset?: ResetDeps;
  /** Serve HTTPS (and the events WebSocket as WSS) with this certificate; absent: plain HTTP. */
  tls?: TlsMaterial;
}

export function buildApp(deps: AppDeps): FastifyInstance {
  const limits: ConnectionLimits = { ...DEFAULT_CONNECTION_LIMITS, ...deps.limits };
  // Fastify's own logger stays off: request logs would carry Authorization headers.
  const app = Fastify({
    logger: false,
    bodyLimit: deps.bodyLimit,
    forceCloseConnections: true,
    return503OnClosing: true,
    ...(deps.tls ? { serverFactory: httpsServerFactory(deps.tls, limits) } : { http: httpServerOptions(limits) }),
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
  // AgentJet's client routes carry their credential (the join token) in the path, checked by their scope.
  installEarlyAuth(
    app,
    deps.matcher,
    (key) => deps.swarm.verifyKey(key),
    deps.agentjetCompat ? isAgentJetClientPath : undefined,
  );
  installHttpBasics(app, deps.bodyLimit, deps.log);
  const responses = responseStoreFor(app, deps.swarm);
  const inference = (scope: FastifyInstance): void => {
    registerOpenAiRoutes(scope, deps);
    registerResponsesRoutes(scope, deps, responses);
    registerMessagesRoutes(scope, deps);
  };
  inference(app);
  registerSwarmRoutes(app, {
    swarm: deps.swarm,
    matcher: deps.matcher,
    heartbeatS: deps.heartbeatS,
    ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}),
    ...(deps.tls ? { tlsFingerprint: deps.tls.fingerprint256 } : {}),
  });
  registerControlRoutes(app, deps);
  registerInspectionRoutes(app, deps);
  if (deps.agentjetCompat)
    registerAgentJetRoutes(app, {
      swarm: deps.swarm,
      matcher: deps.matcher,
      registerInference: inference,
      ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}),
    });
  return app;
}
