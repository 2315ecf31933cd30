// The store's run-level tables: runs (with config snapshots), step/eval metrics, code-version
// markers, code versions (file contents deduplicated by hash), clients and vocabularies.
import Database from 'better-sqlite3';
import { z } from 'zod';
import {
  ClientRowSchema,
  CodeMarkerSchema,
  EvalPointSchema,
  StepPointSchema,
  WorkbenchError,
  type ClientRow,
  type CodeFile,
  type CodeMarker,
  type CodeVersion,
  type EvalPoint,
  type RunMetrics,
  type RunRow,
  type StepPoint,
} from '../../shared/workbench-api';
import { runIdProblem } from '../../shared/run-id';
import { checked, contentHash, parseRow, parseStoredJson, type StoreContext } from './context';
import type { NewCodeVersion, NewRun, Store, StoredRun } from './types';

type RunsPart = Pick<
  Store,
  | 'createRun'
  | 'endRun'
  | 'getRun'
  | 'listRuns'
  | 'getRunRow'
  | 'putStep'
  | 'putEval'
  | 'putMarker'
  | 'metrics'
  | 'putCodeVersion'
  | 'setCodeVersionStep'
  | 'listCodeVersions'
  | 'codeVersionFiles'
  | 'putClient'
  | 'listClients'
  | 'putVocab'
  | 'hasVocab'
> & {
  /** The run's vocabulary, or null when none was stored. */
  vocab(runId: string): readonly string[] | null;
};

const RunBaseRowSchema = z.object({
  run_id: z.string(),
  name: z.string(),
  mode: z.enum(['local', 'remote']),
  worker_url: z.string(),
  model: z.string(),
  example: z.string().nullable(),
  config: z.string(),
  created_at: z.number(),
  ended_at: z.number().nullable(),
});
const RunListRowSchema = RunBaseRowSchema.omit({ config: true }).extend({
  steps: z.number().int(),
  episodes: z.number().int(),
  last_reward_mean: z.number().nullable(),
  last_eval_success: z.number().nullable(),
});

const RUN_LIST_SQL = `
  SELECT r.run_id, r.name, r.mode, r.worker_url, r.model, r.example, r.created_at, r.ended_at,
    (SELECT COUNT(*) FROM steps s WHERE s.run = r.id) AS steps,
    (SELECT COUNT(*) FROM episodes e WHERE e.run = r.id) AS episodes,
    (SELECT s.reward_mean FROM steps s WHERE s.run = r.id ORDER BY s.step DESC LIMIT 1) AS last_reward_mean,
    (SELECT v.success_rate FROM evals v WHERE v.run = r.id ORDER BY v.time DESC LIMIT 1) AS last_eval_success
  FROM runs r`;

/** The columns every run read shares, in the contract's names. */
function runFields(r: Omit<z.infer<typeof RunBaseRowSchema>, 'config'>): Omit<StoredRun, 'config'> {
  return {
    runId: r.run_id,
    name: r.name,
    mode: r.mode,
    workerUrl: r.worker_url,
    model: r.model,
    example: r.example,
    createdAt: r.created_at,
    endedAt: r.ended_at,
  };
}

function toRunRow(r: z.infer<typeof RunListRowSchema>, liveRunId: string | null): RunRow {
  return {
    ...runFields(r),
    live: r.run_id === liveRunId,
    steps: r.steps,
    episodes: r.episodes,
    lastRewardMean: r.last_reward_mean,
    lastEvalSuccess: r.last_eval_success,
  };
}

const CodeVersionRowSchema = z.object({
  code_version: z.string(),
  created_at: z.number(),
  step: z.number().int().nullable(),
});
const PathRowSchema = z.object({ code_version: z.string(), path: z.string() });
const FileRowSchema = z.object({ path: z.string(), content: z.string() });
const MarkerRowSchema = z.object({
  code_version: z.string(),
  previous_code_version: z.string().nullable(),
  time: z.number(),
  step: z.number().int(),
});
const PiecesSchema = z.array(z.string());

const VOCAB_CACHE_SIZE = 4;

export function runsPart(ctx: StoreContext): RunsPart {
  const { stmt, runKey } = ctx;
  const vocabCache = new Map<string, string[]>();

  const codeVersionExists = (run: number, codeVersion: string): boolean =>
    stmt('SELECT 1 FROM code_versions WHERE run = ? AND code_version = ?').get(run, codeVersion) !== undefined;

  return {
    createRun(run: NewRun) {
      const problem = runIdProblem(run.runId);
      if (problem) throw new WorkbenchError('invalid_input', problem);
      const config = JSON.stringify(run.config ?? null);
      try {
        stmt(
          'INSERT INTO runs (run_id, name, mode, worker_url, model, example, config, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        ).run(run.runId, run.name, run.mode, run.workerUrl, run.model, run.example, config, run.createdAt);
      } catch (err) {
        // run_id is the table's one UNIQUE column besides the key.
        if (err instanceof Database.SqliteError && err.code === 'SQLITE_CONSTRAINT_UNIQUE') {
          throw new WorkbenchError('conflict', `run ${JSON.stringify(run.runId)} already exists in the store`);
        }
        throw err;
      }
    },

    endRun(runId, at) {
      stmt('UPDATE runs SET ended_at = ? WHERE id = ?').run(at, runKey(runId));
    },

    getRun(runId): StoredRun {
      const r = parseRow(
        RunBaseRowSchema,
        stmt(
          'SELECT run_id, name, mode, worker_url, model, example, config, created_at, ended_at FROM runs WHERE id = ?',
        ).get(runKey(runId)),
        'run',
      );
      return { ...runFields(r), config: parseStoredJson(z.unknown(), r.config, `config of run ${runId}`) };
    },

    listRuns(liveRunId) {
      return stmt(`${RUN_LIST_SQL} ORDER BY r.created_at DESC, r.id DESC`)
        .all()
        .map((row) => toRunRow(parseRow(RunListRowSchema, row, 'run list'), liveRunId));
    },

    getRunRow(runId, liveRunId) {
      return toRunRow(
        parseRow(RunListRowSchema, stmt(`${RUN_LIST_SQL} WHERE r.id = ?`).get(runKey(runId)), 'run list'),
        liveRunId,
      );
    },

    putStep(runId, input: StepPoint) {
      const point = checked(StepPointSchema, input, 'step point');
      stmt(
        'INSERT INTO steps (run, step, reward_mean, point) VALUES (?, ?, ?, ?) ON CONFLICT (run, step) DO UPDATE SET reward_mean = excluded.reward_mean, point = excluded.point',
      ).run(runKey(runId), point.step, point.rewardMean, JSON.stringify(point));
    },

    putEval(runId, input: EvalPoint) {
      const point = checked(EvalPointSchema, input, 'eval point');
      stmt(
        'INSERT INTO evals (run, weight_version, time, success_rate, point) VALUES (?, ?, ?, ?, ?) ON CONFLICT (run, weight_version, time) DO UPDATE SET success_rate = excluded.success_rate, point = excluded.point',
      ).run(runKey(runId), point.weightVersion, point.time, point.successRate, JSON.stringify(point));
    },

    putMarker(runId, input: CodeMarker) {
      const marker = checked(CodeMarkerSchema, input, 'code marker');
      stmt(
        'INSERT INTO markers (run, code_version, time, step, previous_code_version) VALUES (?, ?, ?, ?, ?) ON CONFLICT (run, code_version, time) DO UPDATE SET step = excluded.step, previous_code_version = excluded.previous_code_version',
      ).run(runKey(runId), marker.codeVersion, marker.time, marker.step, marker.previousCodeVersion);
    },

    metrics(runId): RunMetrics {
      const run = runKey(runId);
      const steps = stmt('SELECT point FROM steps WHERE run = ? ORDER BY step').pluck().all(run);
      const evals = stmt('SELECT point FROM evals WHERE run = ? ORDER BY time, weight_version').pluck().all(run);
      const markers = stmt(
        'SELECT code_version, previous_code_version, time, step FROM markers WHERE run = ? ORDER BY time, step',
      ).all(run);
      const text = (v: unknown, what: string): string => {
        if (typeof v !== 'string') throw new Error(`stored ${what} is not text`);
        return v;
      };
      return {
        runId,
        steps: steps.map((p) => parseStoredJson(StepPointSchema, text(p, 'step'), `step of run ${runId}`)),
        evals: evals.map((p) => parseStoredJson(EvalPointSchema, text(p, 'eval'), `eval of run ${runId}`)),
        markers: markers.map((row) => {
          const m = parseRow(MarkerRowSchema, row, 'marker');
          return CodeMarkerSchema.parse({
            codeVersion: m.code_version,
            previousCodeVersion: m.previous_code_version,
            time: m.time,
            step: m.step,
          });
        }),
      };
    },

    putCodeVersion(runId, version: NewCodeVersion) {
      const run = runKey(runId);
      ctx.db.transaction(() => {
        stmt(
          'INSERT INTO code_versions (run, code_version, created_at, step) VALUES (?, ?, ?, ?) ON CONFLICT (run, code_version) DO UPDATE SET step = COALESCE(code_versions.step, excluded.step)',
        ).run(run, version.codeVersion, version.createdAt, version.step);
        for (const file of version.files) {
          const hash = contentHash(file.content);
          stmt('INSERT OR IGNORE INTO file_contents (hash, content) VALUES (?, ?)').run(hash, file.content);
          stmt('INSERT OR REPLACE INTO code_version_files (run, code_version, path, hash) VALUES (?, ?, ?, ?)').run(
            run,
            version.codeVersion,
            file.path,
            hash,
          );
        }
      })();
    },

    setCodeVersionStep(runId, codeVersion, step) {
      const run = runKey(runId);
      if (!codeVersionExists(run, codeVersion))
        throw new WorkbenchError(
          'not_found',
          `run ${JSON.stringify(runId)} has no code version ${JSON.stringify(codeVersion)}`,
        );
      stmt('UPDATE code_versions SET step = COALESCE(step, ?) WHERE run = ? AND code_version = ?').run(
        step,
        run,
        codeVersion,
      );
    },

    listCodeVersions(runId): CodeVersion[] {
      const run = runKey(runId);
      const paths = new Map<string, string[]>();
      for (const row of stmt(
        'SELECT code_version, path FROM code_version_files WHERE run = ? ORDER BY code_version, path',
      ).all(run)) {
        const p = parseRow(PathRowSchema, row, 'code version file');
        const list = paths.get(p.code_version);
        if (list === undefined) paths.set(p.code_version, [p.path]);
        else list.push(p.path);
      }
      return stmt(
        'SELECT code_version, created_at, step FROM code_versions WHERE run = ? ORDER BY created_at, code_version',
      )
        .all(run)
        .map((row) => {
          const v = parseRow(CodeVersionRowSchema, row, 'code version');
          return {
            codeVersion: v.code_version,
            createdAt: v.created_at,
            step: v.step,
            files: paths.get(v.code_version) ?? [],
          };
        });
    },

    codeVersionFiles(runId, codeVersion): CodeFile[] {
      const run = runKey(runId);
      if (!codeVersionExists(run, codeVersion))
        throw new WorkbenchError(
          'not_found',
          `run ${JSON.stringify(runId)} has no code version ${JSON.stringify(codeVersion)}`,
        );
      return stmt(
        'SELECT f.path, c.content FROM code_version_files f JOIN file_contents c ON c.hash = f.hash WHERE f.run = ? AND f.code_version = ? ORDER BY f.path',
      )
        .all(run, codeVersion)
        .map((row) => parseRow(FileRowSchema, row, 'code file'));
    },

    putClient(runId, input: ClientRow) {
      const client = checked(ClientRowSchema, input, 'client row');
      stmt(
        'INSERT INTO clients (run, client_id, row) VALUES (?, ?, ?) ON CONFLICT (run, client_id) DO UPDATE SET row = excluded.row',
      ).run(runKey(runId), client.clientId, JSON.stringify(client));
    },

    listClients(runId) {
      return stmt('SELECT row FROM clients WHERE run = ? ORDER BY client_id')
        .pluck()
        .all(runKey(runId))
        .map((row) => parseStoredJson(ClientRowSchema, typeof row === 'string' ? row : '', `client of run ${runId}`));
    },

    putVocab(runId, pieces) {
      const run = runKey(runId);
      const text = JSON.stringify(pieces);
      const hash = contentHash(text);
      ctx.db.transaction(() => {
        stmt('INSERT OR IGNORE INTO vocabs (hash, pieces) VALUES (?, ?)').run(hash, text);
        stmt('UPDATE runs SET vocab_hash = ? WHERE id = ?').run(hash, run);
      })();
    },

    hasVocab(runId) {
      return stmt('SELECT vocab_hash FROM runs WHERE id = ?').pluck().get(runKey(runId)) !== null;
    },

    vocab(runId) {
      const hash: unknown = stmt('SELECT vocab_hash FROM runs WHERE id = ?').pluck().get(runKey(runId));
      if (typeof hash !== 'string') return null;
      const cached = vocabCache.get(hash);
      if (cached !== undefined) return cached;
      const text: unknown = stmt('SELECT pieces FROM vocabs WHERE hash = ?').pluck().get(hash);
      if (typeof text !== 'string') throw new Error(`run ${runId}'s vocabulary ${hash} is missing`);
      const pieces = parseStoredJson(PiecesSchema, text, `vocabulary of run ${runId}`);
      if (vocabCache.size >= VOCAB_CACHE_SIZE) vocabCache.delete(vocabCache.keys().next().value ?? '');
      vocabCache.set(hash, pieces);
      return pieces;
    },
  };
}
