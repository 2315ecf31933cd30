// `agentjet runs list|export`: the workbench's stored runs from the command line — list them, or
// export one run's step and eval curves and its episodes as CSV and JSONL and a TensorBoard event
// file (the same export as the Runs panel's).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { runPath } from '../node/run-paths';
import { exportRun, EXPORT_FORMATS } from '../node/services/run-export';
import { openStore } from '../node/store/store';
import { ExportFormatSchema } from '../shared/workbench-api';
import { parseFlags } from './flags';
import { resolveDataDir } from './ui';

export const runsHelp = `agentjet runs list [--data-dir DIR]                 the workbench's stored runs, newest first
agentjet runs export <run-id> [options]             a run's curves and episodes for other tools
  --out DIR                  where to write (default <data dir>/exports/<run-id>)
  --formats LIST             csv, jsonl, tensorboard, comma-separated (default all three)
  --data-dir DIR             the workbench data folder (default $AGENTJET_HOME or ~/.agentjet)`;

const ExportOptions = z
  .object({
    out: z.string().min(1).optional(),
    formats: z
      .string()
      .transform((s) => s.split(',').map((f) => f.trim()))
      .pipe(z.array(ExportFormatSchema).min(1))
      .optional(),
    dataDir: z.string().min(1).optional(),
  })
  .strict();

function openRunsStore(dataDir: string | undefined): ReturnType<typeof openStore> {
  const dir = resolveDataDir(dataDir);
  const path = join(dir, 'workbench.sqlite');
  if (!existsSync(path))
    throw new Error(`no workbench database at ${path} (run the workbench first, or pass --data-dir)`);
  return openStore(path);
}

export function runRuns(argv: readonly string[], out: (line: string) => void = console.log): void {
  const [sub, ...rest] = argv;
  if (sub === 'list') {
    const o = z
      .object({ dataDir: z.string().min(1).optional() })
      .strict()
      .parse(parseFlags(rest));
    const store = openRunsStore(o.dataDir);
    try {
      for (const r of store.listRuns(null)) {
        out(`${r.runId}  ${new Date(r.createdAt).toISOString()}  ${r.name}  ${r.steps} steps  ${r.episodes} episodes`);
      }
    } finally {
      store.close();
    }
    return;
  }
  if (sub !== 'export')
    throw new Error(`agentjet runs: unknown sub-command ${JSON.stringify(sub ?? '')}\n\n${runsHelp}`);
  const [runId, ...flags] = rest;
  if (!runId || runId.startsWith('--'))
    throw new Error(`agentjet runs export needs a run id (see \`agentjet runs list\`)\n\n${runsHelp}`);
  const parsed = ExportOptions.safeParse(parseFlags(flags));
  if (!parsed.success) throw new Error(`${z.prettifyError(parsed.error)}\n\n${runsHelp}`);
  const o = parsed.data;
  const store = openRunsStore(o.dataDir);
  try {
    const dir = o.out ? resolve(o.out) : runPath(join(resolveDataDir(o.dataDir), 'exports'), runId);
    const files = exportRun(store, runId, dir, o.formats ?? EXPORT_FORMATS);
    for (const f of files) out(f);
    out(`exported ${runId}: ${files.length} files in ${dir}`);
  } finally {
    store.close();
  }
}
