// The store's episode metrics (what each episode reported at `end`, e.g. the reward model's score and
// the verifiable reward) and the run's trained reward models with their manifests.
import { z } from 'zod';
import { RewardModelManifestSchema } from '../../shared/reward-model';
import type { RewardModelRow } from '../../shared/rewards-api';
import { WorkbenchError } from '../../shared/workbench-api';
import { checked, parseRow, parseStoredJson, type StoreContext } from './context';
import type { RewardModelRecord, RewardsStore } from './rewards-types';

type RewardModelsPart = Pick<
  RewardsStore,
  | 'putEpisodeMetrics'
  | 'episodeMetrics'
  | 'metricPairs'
  | 'putRewardModel'
  | 'listRewardModels'
  | 'getRewardModel'
  | 'setRewardModelDeployed'
>;

const MetricsSchema = z
  .record(z.string().min(1).max(300), z.number().refine(Number.isFinite, 'a finite number'))
  .refine((m) => Object.keys(m).length <= 256, 'at most 256 metrics');
const MetricName = z.string().regex(/^[A-Za-z0-9_.:-]{1,100}$/, 'a metric name (letters, digits, _ . : -)');
const PairRowSchema = z.object({
  episode_id: z.string(),
  created_at: z.number(),
  code_version: z.string().nullable(),
  x: z.number(),
  y: z.number(),
});
const RmDbRowSchema = z.object({
  version: z.number().int(),
  folder: z.string(),
  sha256: z.string(),
  created_at: z.number(),
  deployed_at: z.number().nullable(),
  manifest: z.string(),
});
const RecordSchema = z.object({
  version: z.number().int().positive(),
  folder: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: z.number(),
  manifest: RewardModelManifestSchema,
});

function toRow(
  r: z.infer<typeof RmDbRowSchema>,
  runId: string,
): RewardModelRow & { manifestParsed: RewardModelRecord['manifest'] } {
  const m = parseStoredJson(
    RewardModelManifestSchema,
    r.manifest,
    `manifest of reward model v${r.version} (run ${runId})`,
  );
  const held = m.metrics.heldout;
  return {
    version: r.version,
    folder: r.folder,
    sha256: r.sha256,
    createdAt: r.created_at,
    deployedAt: r.deployed_at,
    loss: m.loss,
    heldoutAccuracy: m.metrics.heldoutAccuracy,
    heldoutLabels: m.loss === 'pointwise' ? held.points : held.pairs || held.points,
    onnxMaxAbsDiff: m.onnx.maxAbsDiff,
    pointLabels: m.training.pointLabels,
    pairLabels: m.training.pairLabels,
    trainSeconds: m.training.seconds,
    base: m.base,
    manifestParsed: m,
  };
}

export function rewardModelsPart(ctx: StoreContext): RewardModelsPart {
  const { stmt, runKey, episodeKey } = ctx;
  return {
    putEpisodeMetrics(runId, episodeId, metrics) {
      const m = checked(MetricsSchema, metrics, 'episode metrics');
      stmt(
        'INSERT INTO episode_metrics (episode, metrics) VALUES (?, ?) ON CONFLICT (episode) DO UPDATE SET metrics = excluded.metrics',
      ).run(episodeKey(runId, episodeId), JSON.stringify(m));
    },

    episodeMetrics(runId, episodeId) {
      const text: unknown = stmt('SELECT metrics FROM episode_metrics WHERE episode = ?')
        .pluck()
        .get(episodeKey(runId, episodeId));
      return typeof text === 'string' ? parseStoredJson(MetricsSchema, text, `metrics of episode ${episodeId}`) : null;
    },

    metricPairs(runId, x, y, limit) {
      const xName = checked(MetricName, x, 'metric');
      const yName = checked(MetricName, y, 'metric');
      if (!Number.isInteger(limit) || limit < 1)
        throw new WorkbenchError('invalid_input', `limit must be a positive integer, got ${limit}`);
      const rows = stmt(`
        SELECT * FROM (
          SELECT e.episode_id, e.created_at, e.code_version,
            json_extract(m.metrics, '$."' || ? || '"') AS x, json_extract(m.metrics, '$."' || ? || '"') AS y
          FROM episode_metrics m JOIN episodes e ON e.id = m.episode
          WHERE e.run = ? AND x IS NOT NULL AND y IS NOT NULL
          ORDER BY e.created_at DESC LIMIT ?
        ) ORDER BY created_at`).all(xName, yName, runKey(runId), limit);
      return rows.map((r) => {
        const p = parseRow(PairRowSchema, r, 'metric pair');
        return { episodeId: p.episode_id, createdAt: p.created_at, codeVersion: p.code_version, x: p.x, y: p.y };
      });
    },

    putRewardModel(runId, record) {
      const r = checked(RecordSchema, record, 'reward model');
      const res = stmt(
        'INSERT INTO reward_models (run, version, folder, sha256, created_at, manifest) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run, version) DO NOTHING',
      ).run(runKey(runId), r.version, r.folder, r.sha256, r.createdAt, JSON.stringify(r.manifest));
      if (res.changes === 0)
        throw new WorkbenchError('conflict', `run ${JSON.stringify(runId)} has a reward model v${r.version} already`);
    },

    listRewardModels(runId) {
      return stmt('SELECT * FROM reward_models WHERE run = ? ORDER BY version')
        .all(runKey(runId))
        .map((raw) => {
          const { manifestParsed: _m, ...row } = toRow(parseRow(RmDbRowSchema, raw, 'reward model'), runId);
          return row;
        });
    },

    getRewardModel(runId, version) {
      const raw: unknown = stmt('SELECT * FROM reward_models WHERE run = ? AND version = ?').get(
        runKey(runId),
        version,
      );
      if (raw === undefined)
        throw new WorkbenchError('not_found', `run ${JSON.stringify(runId)} has no reward model v${version}`);
      const row = toRow(parseRow(RmDbRowSchema, raw, 'reward model'), runId);
      return {
        version: row.version,
        folder: row.folder,
        sha256: row.sha256,
        createdAt: row.createdAt,
        deployedAt: row.deployedAt,
        manifest: row.manifestParsed,
      };
    },

    setRewardModelDeployed(runId, version, at) {
      const changes = stmt('UPDATE reward_models SET deployed_at = ? WHERE run = ? AND version = ?').run(
        at,
        runKey(runId),
        version,
      ).changes;
      if (changes === 0)
        throw new WorkbenchError('not_found', `run ${JSON.stringify(runId)} has no reward model v${version}`);
    },
  };
}
