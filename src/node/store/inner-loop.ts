// The store's inner-loop tables (docs/inner-loop.md): which episodes a quarantine holds out of
// training (and when a release put them back), saved fork probes with their results over weight
// versions, and the regression board's figures per commit.
import { z } from 'zod';
import {
  ProbeSpecSchema,
  RegressResultSchema,
  type Probe,
  type ProbePoint,
  type ProbeSpec,
  type QuarantineMark,
  type RegressResult,
} from '../../shared/inner-loop';
import { WorkbenchError } from '../../shared/workbench-api';
import { checked, parseRow, parseStoredJson, type StoreContext } from './context';

export interface InnerLoopStore {
  /** Marks episodes quarantined (again, if released before). */
  markQuarantined(runId: string, codeVersion: string, episodeIds: readonly string[], at: number): void;
  markReleased(runId: string, episodeIds: readonly string[], at: number): void;
  quarantineMarks(runId: string): QuarantineMark[];
  /** The episodes the run's last stored update trained (its highest trained step). */
  lastUpdateEpisodes(runId: string): string[];
  /** Saves (or replaces, by name) a probe; returns its id. */
  putProbe(runId: string, name: string, spec: ProbeSpec, at: number): number;
  listProbes(runId: string): Probe[];
  putProbePoint(probeId: number, point: ProbePoint, result: unknown): void;
  /** Oldest weight version first. */
  probePoints(probeId: number): ProbePoint[];
  putRegressResults(results: readonly RegressResult[]): void;
  /** Every stored figure, oldest commit first (optionally of one benchmark). */
  regressResults(bench?: string): RegressResult[];
}

const MarkRow = z.object({
  episode_id: z.string(),
  code_version: z.string(),
  quarantined_at: z.number(),
  released_at: z.number().nullable(),
});
const ProbeRow = z.object({ id: z.number().int(), name: z.string(), spec: z.string(), created_at: z.number() });
const PointRow = z.object({
  weight_version: z.number().int(),
  at: z.number(),
  k: z.number().int(),
  hits: z.number().int(),
  mean_logprob: z.number().nullable(),
});
const RegressRow = z.object({
  commit_sha: z.string(),
  commit_date: z.number(),
  subject: z.string(),
  bench: z.string(),
  figure: z.string(),
  seed: z.number().int(),
  value: z.number(),
  curve: z.string().nullable(),
  machine: z.string(),
  ran_at: z.number(),
});
const Curve = z.array(z.number());

export function innerLoopPart(ctx: StoreContext): InnerLoopStore {
  const { db } = ctx;
  const mark = db.prepare(`
    INSERT INTO quarantined_episodes (run, episode_id, code_version, quarantined_at, released_at)
    VALUES (?, ?, ?, ?, NULL)
    ON CONFLICT (run, episode_id) DO UPDATE SET
      code_version = excluded.code_version, quarantined_at = excluded.quarantined_at, released_at = NULL`);
  const release = db.prepare(
    'UPDATE quarantined_episodes SET released_at = ? WHERE run = ? AND episode_id = ? AND released_at IS NULL',
  );
  const insertRegress = db.prepare(`
    INSERT INTO regress_results (commit_sha, commit_date, subject, bench, figure, seed, value, curve, machine, ran_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  return {
    markQuarantined(runId, codeVersion, episodeIds, at) {
      const run = ctx.runKey(runId);
      db.transaction(() => episodeIds.forEach((id) => mark.run(run, id, codeVersion, at)))();
    },
    markReleased(runId, episodeIds, at) {
      const run = ctx.runKey(runId);
      db.transaction(() => episodeIds.forEach((id) => release.run(at, run, id)))();
    },
    quarantineMarks(runId) {
      const rows = db
        .prepare('SELECT * FROM quarantined_episodes WHERE run = ? ORDER BY quarantined_at, episode_id')
        .all(ctx.runKey(runId));
      return rows.map((raw) => {
        const r = parseRow(MarkRow, raw, 'quarantine mark');
        return {
          episodeId: r.episode_id,
          codeVersion: r.code_version,
          quarantinedAt: r.quarantined_at,
          releasedAt: r.released_at,
        };
      });
    },
    lastUpdateEpisodes(runId) {
      const run = ctx.runKey(runId);
      return db
        .prepare(
          `SELECT episode_id FROM episodes WHERE run = ? AND trained IS NOT NULL AND json_extract(trained, '$.step') =
             (SELECT MAX(json_extract(trained, '$.step')) FROM episodes WHERE run = ? AND trained IS NOT NULL)`,
        )
        .all(run, run)
        .map((raw) => parseRow(z.object({ episode_id: z.string() }), raw, 'episode').episode_id);
    },
    putProbe(runId, name, spec, at) {
      const valid = checked(ProbeSpecSchema, spec, 'probe');
      const run = ctx.runKey(runId);
      db.prepare(
        `INSERT INTO probes (run, name, spec, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (run, name) DO UPDATE SET spec = excluded.spec`,
      ).run(run, name, JSON.stringify(valid), at);
      const row = parseRow(
        z.object({ id: z.number().int() }),
        db.prepare('SELECT id FROM probes WHERE run = ? AND name = ?').get(run, name),
        'probe',
      );
      return row.id;
    },
    listProbes(runId) {
      return db
        .prepare('SELECT id, name, spec, created_at FROM probes WHERE run = ? ORDER BY id')
        .all(ctx.runKey(runId))
        .map((raw) => {
          const r = parseRow(ProbeRow, raw, 'probe');
          return {
            id: r.id,
            name: r.name,
            spec: parseStoredJson(ProbeSpecSchema, r.spec, 'probe'),
            createdAt: r.created_at,
          };
        });
    },
    putProbePoint(probeId, p, result) {
      const known = db.prepare('SELECT 1 FROM probes WHERE id = ?').get(probeId);
      if (!known) throw new WorkbenchError('not_found', `no probe ${probeId}`);
      db.prepare(
        `INSERT OR REPLACE INTO probe_results (probe, weight_version, at, k, hits, mean_logprob, result)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ).run(probeId, p.weightVersion, p.at, p.k, p.hits, p.meanLogprob, JSON.stringify(result));
    },
    probePoints(probeId) {
      return db
        .prepare(
          'SELECT weight_version, at, k, hits, mean_logprob FROM probe_results WHERE probe = ? ORDER BY weight_version, at',
        )
        .all(probeId)
        .map((raw) => {
          const r = parseRow(PointRow, raw, 'probe result');
          return { weightVersion: r.weight_version, at: r.at, k: r.k, hits: r.hits, meanLogprob: r.mean_logprob };
        });
    },
    putRegressResults(results) {
      const valid = results.map((r) => checked(RegressResultSchema, r, 'regression result'));
      db.transaction(() => {
        for (const r of valid)
          insertRegress.run(
            r.commit,
            r.commitDate,
            r.subject,
            r.bench,
            r.figure,
            r.seed,
            r.value,
            r.curve ? JSON.stringify(r.curve) : null,
            r.machine,
            r.ranAt,
          );
      })();
    },
    regressResults(bench) {
      const rows =
        bench === undefined
          ? db.prepare('SELECT * FROM regress_results ORDER BY commit_date, id').all()
          : db.prepare('SELECT * FROM regress_results WHERE bench = ? ORDER BY commit_date, id').all(bench);
      return rows.map((raw) => {
        const r = parseRow(RegressRow, raw, 'regression result');
        return {
          commit: r.commit_sha,
          commitDate: r.commit_date,
          subject: r.subject,
          bench: r.bench,
          figure: r.figure,
          seed: r.seed,
          value: r.value,
          curve: r.curve === null ? null : parseStoredJson(Curve, r.curve, 'regression curve'),
          machine: r.machine,
          ranAt: r.ran_at,
        };
      });
    },
  };
}
