// AgentJet compatibility (`--agentjet-compat`): the HTTP routes AgentJet's Python `SwarmClient`
// calls, with its field names, status strings and failure texts, mapped onto our episodes, batching
// and worker states — served only under `/agentjet/<join-token>` (the client sends no credentials,
// so the path carries them), together with the inference routes under `/agentjet/<join-token>/v1`
// (the client swaps the scheme and host of the base URL it is handed for its server URL). Errors on
// these routes carry FastAPI's `detail` besides our `error` object.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { poolInformation } from '../../../src/shared/agentjet/pool-info';
import {
  AgreeSyncWeightRequestSchema,
  CanContinueEpisodeRequestSchema,
  ClaimEpisodeRequestSchema,
  claimFailCause,
  EndEpisodeRequestSchema,
  engineStatusOf,
  SyncTrainConfigRequestSchema,
  type EngineStatus,
} from '../../../src/shared/agentjet/protocol';
import { mapAgentJetConfig } from '../../../src/shared/agentjet/train-config';
import { IdSchema } from '../../../src/shared/swarm-protocol';
import { badRequest, notFound, SwarmError } from '../errors';
import type { TokenMatcher } from '../swarm/keys';
import type { Swarm } from '../swarm/swarm';
import { AGENTJET_PREFIX, redactJoinToken } from './agentjet-path';
import { parseBody } from './http';

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
class CompatState {
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

const IdParams = z.object({ joinToken: z.string().max(500) });

function originOf(req: FastifyRequest, publicUrl: string | undefined): string {
  if (publicUrl) return new URL(publicUrl).origin;
  const host =
    typeof req.headers.host === 'string' && /^[A-Za-z0-9.:[\]-]+$/.test(req.headers.host)
      ? req.headers.host
      : 'localhost';
  return `${req.protocol}://${host}`;
}

/** Runs a compat handler; a SwarmError becomes FastAPI's `{detail}` (plus our `error`) with its status. */
const compat =
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

function registerEpisodeRoutes(scope: FastifyInstance, deps: AgentJetRouteDeps, state: CompatState): void {
  const { swarm } = deps;

  scope.post(
    '/claim_episode',
    compat(async (req) => {
      const body = parseBody(ClaimEpisodeRequestSchema, req.body);
      if (body.episode_type !== 'train' && body.episode_type !== 'eval')
        throw badRequest('unknown_episode_type', `Unknown episode_type: ${body.episode_type.slice(0, 40)}`);
      const refused = {
        success: false,
        client_uuid: body.client_uuid,
        episode_uuid: '',
        openai_base_url: '',
        openai_api_key: '',
      };
      const status = state.status();
      if (status !== 'ENGINE.ROLLING') return { ...refused, fail_cause: claimFailCause(status) };
      const taskId = body.throttle_policy?.current_task_id || body.partition_limit?.current_task_id || undefined;
      const timeoutS = body.discard_episode_timeout > 0 ? body.discard_episode_timeout : undefined;
      try {
        const c = swarm.claim(
          {
            clientId: body.client_uuid,
            kind: body.episode_type,
            ...(taskId ? { taskId } : {}),
            ...(timeoutS ? { timeoutS } : {}),
          },
          `${originOf(req, deps.publicUrl)}/v1`,
        );
        return {
          success: true,
          client_uuid: body.client_uuid,
          episode_uuid: c.episodeId,
          openai_base_url: c.baseUrl,
          openai_api_key: c.apiKey,
          fail_cause: '',
        };
      } catch (err) {
        if (err instanceof SwarmError && err.status === 503)
          return { ...refused, fail_cause: claimFailCause(state.status()) };
        throw err;
      }
    }),
  );

  scope.post(
    '/end_episode',
    compat(async (req) => {
      const body = parseBody(EndEpisodeRequestSchema, req.body);
      const ep = swarm.findEpisode(body.episode_uuid);
      if (!ep) throw badRequest('episode_not_found', `Episode ${body.episode_uuid.slice(0, 80)} not found.`);
      if (ep.clientId !== body.client_uuid)
        throw notFound(
          'episode_of_other_client',
          `Episode ${ep.id} is claimed by different client: ${ep.clientId}, but got ${body.client_uuid}.`,
        );
      if (ep.status !== 'open') {
        throw badRequest(
          'episode_not_claimed',
          `Episode ${ep.id} is not in claimed status (${ep.status}${ep.reason ? `: ${ep.reason}` : ''}); if it expired, pass a larger \`discard_episode_timeout\` to begin_episode.`,
        );
      }
      const out = body.workflow_output;
      if (typeof out.reward !== 'number')
        throw badRequest(
          'invalid_reward',
          'workflow_output.reward must be one float (lists of step rewards and None are not supported)',
        );
      const metaTask = out.metadata?.['task_id'];
      if (metaTask !== undefined && metaTask !== body.task_id)
        throw badRequest('task_id_mismatch', 'workflow_output.metadata.task_id must match task_id');
      const metrics = Object.fromEntries(
        Object.entries(out.log_metrics ?? {})
          .flatMap(([k, v]) => (typeof v === 'number' && /^[\x20-\x7e]{1,200}$/.test(k) ? [[k, v]] : []))
          .slice(0, 64),
      );
      const taskId = IdSchema.safeParse(body.task_id);
      if (!taskId.success)
        throw badRequest('invalid_task_id', 'task_id must be set: a printable id of at most 200 characters');
      const res = await swarm.end(ep.id, {
        taskId: taskId.data,
        reward: out.reward,
        ...(typeof out.is_success === 'boolean' ? { success: out.is_success } : {}),
        ...(Object.keys(metrics).length > 0 ? { metrics } : {}),
      });
      if (res.pooled && body.declare_client_active !== false) state.endedSinceSync.add(body.client_uuid);
      return { success: true };
    }),
  );

  scope.post(
    '/abort_episode',
    compat(async (req) => {
      const body = parseBody(EndEpisodeRequestSchema.partial({ workflow_output: true, task_id: true }), req.body);
      const ep = swarm.findEpisode(body.episode_uuid);
      if (ep && ep.status === 'open') swarm.abort(ep.id, 'client_abort');
      return { success: true };
    }),
  );

  scope.post(
    '/can_continue_episode',
    compat(async (req) => {
      const body = parseBody(CanContinueEpisodeRequestSchema, req.body);
      const ep = swarm.findEpisode(body.episode_uuid);
      const offline = state.status() === 'ENGINE.OFFLINE';
      return { can_continue: !offline && ep !== undefined && ep.status === 'open' && ep.clientId === body.client_uuid };
    }),
  );

  scope.post(
    '/get_episode_buffer',
    compat(async () => ({
      buffer: swarm.openEpisodes().map((e) => ({
        episode_uuid: e.id,
        episode_status: e.status === 'open' ? 'claimed' : e.status,
        episode_type: e.kind,
        openai_base_url: '',
        openai_api_key: '',
        client_uuid: e.clientId,
        zmq_listen_result_addr: '',
        latest_activity_timestamp: e.lastActivityAt / 1000,
        discard_episode_timeout: e.timeoutMs / 1000,
        llm_call_count: e.calls.length,
        debug_log: [],
        optional_task_id: e.taskId ?? '',
      })),
    })),
  );

  scope.post(
    '/agree_sync_weight',
    compat(async (req) => {
      const body = parseBody(AgreeSyncWeightRequestSchema, req.body);
      if (!state.endedSinceSync.has(body.client_uuid)) {
        return {
          success: false,
          failure_reason: `client ${body.client_uuid} is not in the active client list: it has ended no train episode since the last weight sync`,
        };
      }
      swarm.agreeSync(body.client_uuid);
      return { success: true, failure_reason: '' };
    }),
  );
}

function registerEngineRoutes(scope: FastifyInstance, deps: AgentJetRouteDeps, state: CompatState): void {
  const { swarm } = deps;

  scope.get(
    '/get_engine_status',
    compat(async () => ({
      engine_status: state.status(),
      engine_status_detail: `${swarm.state}: ${swarm.trainer.progress().detail}`,
      global_step: swarm.step,
      weight_version: swarm.weightVersion,
    })),
  );

  scope.get(
    '/get_current_batch_rollout_pool_information',
    compat(async () =>
      poolInformation(
        swarm.training,
        swarm
          .pooled()
          .map((e) => ({ episodeId: e.episodeId, taskId: e.taskId, clientId: e.clientId, reward: e.reward })),
        swarm.openEpisodes().map((e) => ({
          episodeId: e.id,
          clientId: e.clientId,
          lastActivityAt: e.lastActivityAt,
          timeoutMs: e.timeoutMs,
          ...(e.taskId ? { taskId: e.taskId } : {}),
        })),
        { now: swarm.now(), engineStatus: state.status(), globalStep: swarm.step },
      ),
    ),
  );

  scope.get(
    '/get_server_experiment_dir',
    compat(async () => ({ server_experiment_dir: swarm.runDir })),
  );

  scope.post(
    '/sync_train_config',
    compat(async (req) => {
      const body = parseBody(SyncTrainConfigRequestSchema, req.body);
      if (state.status() !== 'ENGINE.OFFLINE')
        throw badRequest(
          'engine_started',
          'Engine is already started. Call `stop_engine` first before syncing new training configuration.',
        );
      let doc: unknown;
      try {
        doc = parseYaml(body.yaml_as_string, { maxAliasCount: 100 });
      } catch (err) {
        throw badRequest(
          'invalid_yaml',
          `yaml_as_string is not valid YAML: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
        );
      }
      const sync = mapAgentJetConfig(doc, swarm.training);
      swarm.updateTraining(sync.patch);
      swarm.log(
        'info',
        'agentjet',
        `sync_train_config applied ${Object.keys(sync.applied).join(', ') || 'nothing'}; ignored ${sync.ignored.length} setting(s)`,
      );
      return {
        success: true,
        applied: sync.applied,
        ignored: sync.ignored.slice(0, 500),
        ignored_count: sync.ignored.length,
        config: swarm.training,
      };
    }),
  );

  scope.post(
    '/start_engine',
    compat(async () => {
      if (swarm.state === 'failed' || swarm.state === 'stopping')
        return { success: false, error: `the worker is ${swarm.state}` };
      swarm.resume('started by an AgentJet client');
      return { success: true, pid: process.pid };
    }),
  );

  scope.post(
    '/stop_engine',
    compat(async () => {
      swarm.pause('stopped by an AgentJet client');
      for (const ep of swarm.openEpisodes()) if (ep.status === 'open') swarm.abort(ep.id, 'engine_stopped');
      return { success: true };
    }),
  );
}
