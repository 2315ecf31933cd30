// AgentJet compatibility: the engine routes (status, rollout pool, experiment dir, train-config sync,
// start and stop).
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { parse as parseYaml } from 'yaml';
import { poolInformation } from '../../../src/shared/agentjet/pool-info';
import { SyncTrainConfigRequestSchema } from '../../../src/shared/agentjet/protocol';
import { mapAgentJetConfig } from '../../../src/shared/agentjet/train-config';
import { badRequest } from '../errors';
import type { Swarm } from '../swarm/swarm';
import { compat, type AgentJetRouteDeps, type CompatState } from './agentjet-compat';
import { parseBody } from './http';

type SyncTrainConfigRequest = z.infer<typeof SyncTrainConfigRequestSchema>;

export function registerEngineRoutes(scope: FastifyInstance, deps: AgentJetRouteDeps, state: CompatState): void {
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
    compat(async (req) => syncTrainConfig(parseBody(SyncTrainConfigRequestSchema, req.body), deps.swarm, state)),
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

/** Applies an AgentJet YAML training config while the engine is offline: what was applied and what ignored. */
function syncTrainConfig(body: SyncTrainConfigRequest, swarm: Swarm, state: CompatState) {
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
}
