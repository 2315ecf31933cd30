// Exports a stored run where researchers look: its step curves and evals (per weight version) as
// CSV and JSONL, every episode as CSV and JSONL, and the curves — steps, merging, evals — as a
// TensorBoard event file. Used by the workbench's Runs panel and `agentjet runs export`. The
// formatting is pure (src/shared/export, src/shared/tensorboard); this module reads the store and
// writes the files.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toCsv, toJsonl } from '../../shared/export/csv';
import { eventFileName, fileVersionRecord, scalarsRecord } from '../../shared/tensorboard/event-file';
import { evalScalars, latestEvalPerVersion, storedStepScalars } from '../../shared/tensorboard/run-scalars';
import { ExportFormatSchema, type EpisodeRow, type ExportFormat, type RunMetrics } from '../../shared/workbench-api';
import type { Store } from '../store/types';

export const EXPORT_FORMATS: readonly ExportFormat[] = ExportFormatSchema.options;

const PAGE = 1000;

/** Every episode of a run, oldest first, paged through the store. */
export function allEpisodes(store: Store, runId: string): EpisodeRow[] {
  const rows: EpisodeRow[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = store.episodesPage(runId, {}, offset, PAGE, 'oldest');
    rows.push(...page.rows);
    if (page.rows.length < PAGE || rows.length >= page.total) return rows;
  }
}

/** The TensorBoard records of a run's stored metrics: version record, one per step, one per eval version. */
export function tensorboardBytes(m: RunMetrics, createdAt: number): Uint8Array {
  const records = [fileVersionRecord(createdAt / 1000)];
  for (const p of m.steps) {
    const r = scalarsRecord(p.time / 1000, p.step, storedStepScalars(p));
    if (r) records.push(r);
  }
  for (const e of latestEvalPerVersion(m.evals)) {
    const r = scalarsRecord(e.time / 1000, e.weightVersion, evalScalars(e));
    if (r) records.push(r);
  }
  const out = new Uint8Array(records.reduce((n, r) => n + r.length, 0));
  let at = 0;
  for (const r of records) {
    out.set(r, at);
    at += r.length;
  }
  return out;
}

/** Writes the chosen formats of a run into `dir` (created); returns the files written. */
export function exportRun(
  store: Store,
  runId: string,
  dir: string,
  formats: readonly ExportFormat[] = EXPORT_FORMATS,
): string[] {
  const run = store.getRun(runId);
  const metrics = store.metrics(runId);
  const episodes = allEpisodes(store, runId);
  mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  const write = (name: string, data: string | Uint8Array): void => {
    const path = join(dir, name);
    writeFileSync(path, data);
    files.push(path);
  };
  const tables = { steps: metrics.steps, evals: metrics.evals, episodes } as const;
  for (const [name, rows] of Object.entries(tables)) {
    if (formats.includes('csv')) write(`${name}.csv`, toCsv(rows));
    if (formats.includes('jsonl')) write(`${name}.jsonl`, toJsonl(rows));
  }
  if (formats.includes('tensorboard')) {
    mkdirSync(join(dir, 'tensorboard'), { recursive: true });
    write(
      join('tensorboard', eventFileName(run.createdAt / 1000, 'workbench', `.${runId}`)),
      tensorboardBytes(metrics, run.createdAt),
    );
  }
  return files;
}
