// AgentJet compatibility: the episode routes (claim, end, abort, can-continue, the episode buffer and
// the weight-sync agreement), with AgentJet's field names and failure texts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import {
  AgreeSyncWeightRequestSchema,
  CanContinueEpisodeRequestSchema,
  ClaimEpisodeRequestSchema,
  claimFailCause,
  EndEpisodeRequestSchema,
} from '../../../src/shared/agentjet/protocol';
import { IdSchema } from '../../../src/shared/swarm-protocol';
import { badRequest, notFound, SwarmError } from '../errors';
import type { Swarm } from '../swarm/swarm';
import { compat, originOf, type AgentJetRouteDeps, type CompatState } from './agentjet-compat';
import { parseBody } from './http';

type EndEpisodeRequest = z.infer<typeof EndEpisodeRequestSchema>;

export function registerEpisodeRoutes(scope: FastifyInstance, deps: AgentJetRouteDeps, state: CompatState): void {
  const { swarm } = deps;

  scope.post(
    '/claim_episode',
    compat(async (req) => claimEpisode(req, deps, state)),
  );

  scope.post(
    '/end_episode',
    compat(async (req) => endEpisode(parseBody(EndEpisodeRequestSchema, req.body), deps.swarm, state)),
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

/** Claims an episode for the client, or answers AgentJet's refusal (with its fail cause) when none can start. */
async function claimEpisode(req: FastifyRequest, deps: AgentJetRouteDeps, state: CompatState) {
  const { swarm } = deps;
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
}

/** Ends a claimed episode with the workflow's reward, success flag and numeric metrics. */
async function endEpisode(body: EndEpisodeRequest, swarm: Swarm, state: CompatState): Promise<{ success: true }> {
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
}
