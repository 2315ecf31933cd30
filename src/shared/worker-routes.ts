// THE route table of the worker's HTTP API (DESIGN §4.1): each route's method, path (`:name` params),
// credential, and the zod schemas of its params, query, body and answer. The server registers its
// handlers from it (gpu-worker/src/server/route-table.ts) and every client in the repository calls
// through it (the SDK's SwarmClient, the backend's WorkerClient, the event feed, the benchmarks), so a
// path or a shape is written once. Errors are `ErrorBodySchema` on every route.
import { z } from 'zod';
import { LogprobsResultSchema, LogprobsSequenceSchema, MAX_TOP_K } from './engine-protocol';
import {
  AbortRequestSchema,
  BatchProgressSchema,
  ClaimRequestSchema,
  ClaimResponseSchema,
  ClientInfoSchema,
  EndRequestSchema,
  EndResponseSchema,
  EpisodeStatusSchema,
  EpisodeSummarySchema,
  EvalResultSchema,
  HealthSchema,
  MergedEpisodeAnswerSchema,
  RegisterClientRequestSchema,
  RegisterClientResponseSchema,
  StatusSchema,
  TrainingConfigPatchSchema,
  TrainingConfigSchema,
  WorkerStateSchema,
} from './swarm-protocol';
import {
  ForkRequestSchema,
  ForkResultSchema,
  QuarantineListSchema,
  QuarantineRequestSchema,
  QuarantineResultSchema,
} from './swarm-inner-loop';
import { TimelineSchema } from './timeline/types';

export type HttpMethod = 'GET' | 'POST' | 'PATCH';
/**
 * Who may call a route: nobody in particular, the join token, the admin token, an OpenAI-style episode key,
 * or (the replica attach alone) the replica token or the admin token.
 */
export type RouteAuth = 'none' | 'join' | 'admin' | 'join-or-episode-key' | 'episode-key' | 'replica-or-admin';

export interface RouteSpec {
  method: HttpMethod;
  /** Fastify-style: `/swarm/v1/episodes/:id`. */
  path: string;
  auth: RouteAuth;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The 2xx answer (absent: a stream or a WebSocket, parsed elsewhere). */
  response?: z.ZodType;
}

const route = <R extends RouteSpec>(r: R): R => r;

/** `:id` of an episode route. */
const EpisodeParams = z.object({ id: z.string().max(300) });
/** `:id` of a client route (checked further by the server, with its own error). */
const ClientParams = z.object({ id: z.string() });

// ---- request and answer shapes only these routes use ---------------------------------------------

export const EpisodeListQuerySchema = z.object({
  status: EpisodeStatusSchema.optional(),
  clientId: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(10_000).default(100),
});

export const EpisodeDetailAnswerSchema = z.object({
  episode: EpisodeSummarySchema,
  result: z.unknown(),
  timelines: z.array(TimelineSchema),
});
export type EpisodeDetailAnswer = z.infer<typeof EpisodeDetailAnswerSchema>;

export const ResetRequestSchema = z
  .object({
    config: z
      .object({
        /** Training settings over the ones the worker started with. */
        training: TrainingConfigPatchSchema.default({}),
        seed: z.number().int().optional(),
      })
      .strict()
      .default({ training: {} }),
    /** The new run folder: absolute, or relative to the current run folder's parent (default `<old>-reset-<n>`). */
    runDir: z.string().min(1).max(1000).optional(),
  })
  .strict();
export type ResetRequest = z.input<typeof ResetRequestSchema>;

export const ResetResponseSchema = z.object({
  runDir: z.string(),
  step: z.number().int(),
  weightVersion: z.number().int(),
  previous: z.object({ runDir: z.string(), checkpoint: z.string(), step: z.number().int() }),
});
export type ResetResponse = z.infer<typeof ResetResponseSchema>;

const StateAnswer = z.object({ state: WorkerStateSchema });

// ---- the table -----------------------------------------------------------------------------------

export const workerRoutes = {
  health: route({ method: 'GET', path: '/health', auth: 'none', response: HealthSchema }),
  status: route({ method: 'GET', path: '/swarm/v1/status', auth: 'join', response: StatusSchema }),
  /** A WebSocket (`?since=<seq>&boot=<id>`): swarm-events.ts; a plain GET is refused with 426. */
  events: route({ method: 'GET', path: '/swarm/v1/events', auth: 'admin' }),
  /** A WebSocket for a rollout replica host (`?name=<host>/<i>`): replica-attach.ts; a plain GET gets 426. */
  replicaAttach: route({ method: 'GET', path: '/swarm/v1/replicas/attach', auth: 'replica-or-admin' }),

  registerClient: route({
    method: 'POST',
    path: '/swarm/v1/clients',
    auth: 'join',
    body: RegisterClientRequestSchema,
    response: RegisterClientResponseSchema,
  }),
  clients: route({
    method: 'GET',
    path: '/swarm/v1/clients',
    auth: 'join',
    response: z.object({ clients: z.array(ClientInfoSchema) }),
  }),
  heartbeat: route({
    method: 'POST',
    path: '/swarm/v1/clients/:id/heartbeat',
    auth: 'join',
    params: ClientParams,
    response: z.object({ clientId: z.string(), state: WorkerStateSchema, weightVersion: z.number().int() }),
  }),
  leave: route({
    method: 'POST',
    path: '/swarm/v1/clients/:id/leave',
    auth: 'join',
    params: ClientParams,
    response: z.object({ clientId: z.string(), left: z.literal(true) }),
  }),
  agreeSync: route({
    method: 'POST',
    path: '/swarm/v1/clients/:id/agree-sync',
    auth: 'join',
    params: ClientParams,
    response: z.object({ clientId: z.string(), agreed: z.literal(true), progress: BatchProgressSchema }),
  }),

  claim: route({
    method: 'POST',
    path: '/swarm/v1/episodes',
    auth: 'join',
    body: ClaimRequestSchema,
    response: ClaimResponseSchema,
  }),
  end: route({
    method: 'POST',
    path: '/swarm/v1/episodes/:id/end',
    auth: 'join-or-episode-key',
    params: EpisodeParams,
    body: EndRequestSchema,
    response: EndResponseSchema,
  }),
  abort: route({
    method: 'POST',
    path: '/swarm/v1/episodes/:id/abort',
    auth: 'join-or-episode-key',
    params: EpisodeParams,
    body: AbortRequestSchema,
    response: z.object({ episodeId: z.string(), aborted: z.literal(true) }),
  }),

  config: route({ method: 'GET', path: '/swarm/v1/config', auth: 'admin', response: TrainingConfigSchema }),
  updateConfig: route({
    method: 'PATCH',
    path: '/swarm/v1/config',
    auth: 'admin',
    body: TrainingConfigPatchSchema,
    response: TrainingConfigSchema,
  }),
  pause: route({ method: 'POST', path: '/swarm/v1/control/pause', auth: 'admin', response: StateAnswer }),
  start: route({ method: 'POST', path: '/swarm/v1/control/start', auth: 'admin', response: StateAnswer }),
  checkpoint: route({
    method: 'POST',
    path: '/swarm/v1/control/checkpoint',
    auth: 'admin',
    response: z.object({ step: z.number().int(), weightVersion: z.number().int(), path: z.string() }),
  }),
  /** A fresh run without restarting the process (campaign trials on remote workers): run-reset.ts. */
  reset: route({
    method: 'POST',
    path: '/swarm/v1/control/reset',
    auth: 'admin',
    body: ResetRequestSchema,
    response: ResetResponseSchema,
  }),
  episodes: route({
    method: 'GET',
    path: '/swarm/v1/episodes',
    auth: 'admin',
    query: EpisodeListQuerySchema,
    response: z.object({ episodes: z.array(EpisodeSummarySchema) }),
  }),
  episode: route({
    method: 'GET',
    path: '/swarm/v1/episodes/:id',
    auth: 'admin',
    params: EpisodeParams,
    response: EpisodeDetailAnswerSchema,
  }),
  merged: route({
    method: 'GET',
    path: '/swarm/v1/episodes/:id/merged',
    auth: 'admin',
    params: EpisodeParams,
    response: MergedEpisodeAnswerSchema,
  }),
  /** On-policy distillation: a student's trainer asks its teacher (the body limit bounds the tokens). */
  logprobs: route({
    method: 'POST',
    path: '/swarm/v1/logprobs',
    auth: 'admin',
    body: z
      .object({
        sequences: z.array(LogprobsSequenceSchema).min(1).max(4096),
        /** Also each position's `topK` most likely tokens (distillation from the teacher's top-k). */
        topK: z.number().int().min(1).max(MAX_TOP_K).optional(),
      })
      .strict(),
    response: LogprobsResultSchema.extend({ weightVersion: z.number().int() }),
  }),
  vocab: route({
    method: 'GET',
    path: '/swarm/v1/vocab',
    auth: 'admin',
    response: z.object({ pieces: z.array(z.string()) }),
  }),
  eval: route({
    method: 'GET',
    path: '/swarm/v1/eval',
    auth: 'admin',
    response: z.object({ eval: z.array(EvalResultSchema) }),
  }),

  // The researcher's inner loop (docs/inner-loop.md): quarantine by code version, fork a recorded call.
  quarantine: route({
    method: 'POST',
    path: '/swarm/v1/pool/quarantine',
    auth: 'admin',
    body: QuarantineRequestSchema,
    response: QuarantineResultSchema,
  }),
  releaseQuarantine: route({
    method: 'POST',
    path: '/swarm/v1/pool/release',
    auth: 'admin',
    body: QuarantineRequestSchema,
    response: QuarantineResultSchema,
  }),
  quarantined: route({
    method: 'GET',
    path: '/swarm/v1/pool/quarantine',
    auth: 'admin',
    response: QuarantineListSchema,
  }),
  fork: route({
    method: 'POST',
    path: '/swarm/v1/fork',
    auth: 'admin',
    body: ForkRequestSchema,
    response: ForkResultSchema,
  }),

  // OpenAI-compatible inference (the episode's key); bodies are checked by the API translators, answers may stream.
  models: route({ method: 'GET', path: '/v1/models', auth: 'episode-key' }),
  chatCompletions: route({ method: 'POST', path: '/v1/chat/completions', auth: 'episode-key' }),
  responses: route({ method: 'POST', path: '/v1/responses', auth: 'episode-key' }),
  messages: route({ method: 'POST', path: '/v1/messages', auth: 'episode-key' }),
} as const satisfies Record<string, RouteSpec>;

export type WorkerRoutes = typeof workerRoutes;
export type WorkerRouteName = keyof WorkerRoutes;

type SchemaOf<R, F extends string> = R extends Record<F, infer S> ? S : undefined;
type Out<S> = S extends z.ZodType ? z.output<S> : never;
type In<S> = S extends z.ZodType ? z.input<S> : unknown;
/** What a route answers (parsed). */
export type RouteAnswer<K extends WorkerRouteName> = Out<SchemaOf<WorkerRoutes[K], 'response'>>;
/** What a handler may answer for a route (the schema's input; anything for a stream). */
export type RouteReply<K extends WorkerRouteName> = In<SchemaOf<WorkerRoutes[K], 'response'>>;
/** What a caller sends: path params, query and body, each where the route has them. */
export type RouteCall<K extends WorkerRouteName> = {
  [F in 'params' | 'query' | 'body' as F extends keyof WorkerRoutes[K] ? F : never]: In<SchemaOf<WorkerRoutes[K], F>>;
};

/**
 * The path of a call: `:name` segments filled (URL-encoded) from `params`, then the query string of the
 * defined `query` fields.
 */
export function routePath(
  r: RouteSpec,
  params: Record<string, string> = {},
  query: Record<string, string | number | boolean | undefined> = {},
): string {
  const path = r.path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${r.method} ${r.path}: no value for :${name}`);
    return encodeURIComponent(value);
  });
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) search.set(k, String(v));
  const qs = search.toString();
  return qs ? `${path}?${qs}` : path;
}
