// `agentjet ui`: the workbench in a plain browser. Builds the renderer for the browser when the
// build is missing or stale, starts the workbench services (SQLite store, worker and client
// services) in this process, serves the UI and its WebSocket bridge on 127.0.0.1, and prints the
// URL with its session token. `--connect-local` connects a local worker straight away.
import { spawn } from 'node:child_process';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { startUiSession, type LocalDefaults, type WorkbenchTuning } from '../node/bridge';
import {
  flagShape,
  formFields,
  fromFlags,
  helpLines,
  TRAINING_OPTIONS,
  WORKER_OPTIONS,
  WorkerConfigPatchSchema,
} from '../shared/options/index';
import { parseFlags } from './flags';
import { exitOnSignals } from './signals';

const num = z.coerce.number();
const bool = z.enum(['true', 'false']).transform((v) => v === 'true');

/** The worker options `agentjet ui` passes to its local workers (declared in src/shared/options). */
const UI_WORKER_KEYS = ['threads', 'seed'] as const;

const own = {
  port: num.int().min(0).max(65_535).default(8330),
  host: z.string().min(1).default('127.0.0.1'),
  dataDir: z.string().min(1).optional(),
  connectLocal: bool.default(false),
  model: z.string().min(1).default('builtin'),
  example: z.string().min(1).default('calculator-agent'),
  clients: num.int().min(0).max(64).default(2),
  open: bool.default(false),
  evalEpisodes: num.int().min(0).optional(),
  evalEvery: num.int().positive().optional(),
  relabelEvery: num.int().positive().optional(),
  labelsPerRound: num.int().positive().max(1000).default(32),
};

/** The connect form's training fields double as flags: defaults of local connects that leave them unset. */
const connectKeys = formFields(TRAINING_OPTIONS).map((f) => f.key as keyof typeof TRAINING_OPTIONS);

export const UiOptionsSchema = z
  .object({ ...own, ...flagShape(TRAINING_OPTIONS, connectKeys), ...flagShape(WORKER_OPTIONS, UI_WORKER_KEYS) })
  .strict();
export type UiOptions = z.infer<typeof UiOptionsSchema>;

export const uiHelp = [
  'agentjet ui [options]       the workbench in a browser: UI + WebSocket bridge on 127.0.0.1',
  '  --port P                   HTTP port (default 8330; 0 picks a free one)',
  '  --host H                   bind address (default 127.0.0.1; the URL carries a session token)',
  '  --data-dir DIR             runs database and worker run dirs (default $AGENTJET_HOME or ~/.agentjet)',
  '  --connect-local            connect a local worker at once (with the three options below)',
  '  --model builtin|DIR        its model (default builtin)',
  '  --example NAME|DIR         its example (default calculator-agent)',
  '  --clients N                its local clients (default 2)',
  "  training settings of local connects that leave them unset (default: the worker's):",
  ...helpLines(TRAINING_OPTIONS, { keys: connectKeys }),
  '  settings of local workers:',
  ...helpLines(WORKER_OPTIONS, { keys: UI_WORKER_KEYS }),
  '  --eval-episodes N --eval-every M   held-out eval of local runs: N episodes every M steps',
  '                             (default 16 every 5; --eval-episodes 0 turns it off)',
  '  --relabel-every K          iterated labelling in local runs: every K steps the label queue proposes',
  '                             --labels-per-round M (default 32) episodes; once labelled, a new reward model',
  '                             trains and is deployed (docs/learned-rewards.md)',
  '  --open                     open the URL in the default browser',
  '  Ctrl-C stops the clients and the worker (checkpointing it) and exits.',
].join('\n');

const BOOLEAN_FLAGS = new Set(['--connect-local', '--open']);

/** `--connect-local` / `--open` may stand alone; they become `--flag=true` for parseFlags. */
export function normalizeBooleanFlags(argv: readonly string[]): string[] {
  return argv.map((arg, i) => {
    const next = argv[i + 1];
    return BOOLEAN_FLAGS.has(arg) && (next === undefined || next.startsWith('--')) ? `${arg}=true` : arg;
  });
}

export function parseUiArgs(argv: readonly string[]): UiOptions {
  const parsed = UiOptionsSchema.safeParse(parseFlags(normalizeBooleanFlags(argv)));
  if (!parsed.success) throw new Error(`${z.prettifyError(parsed.error)}\n\n${uiHelp}`);
  return parsed.data;
}

/** `--data-dir`, else $AGENTJET_HOME, else ~/.agentjet. */
export function resolveDataDir(
  given: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  home = homedir(),
): string {
  if (given) return resolve(given);
  const fromEnv = env['AGENTJET_HOME'];
  return fromEnv ? resolve(fromEnv) : join(home, '.agentjet');
}

export function tuningOf(o: UiOptions): WorkbenchTuning {
  const t: WorkbenchTuning = {};
  const worker = WorkerConfigPatchSchema.parse(fromFlags(WORKER_OPTIONS, o, UI_WORKER_KEYS));
  if (Object.keys(worker).length > 0) t.workerConfig = worker;
  if (o.evalEpisodes !== undefined) t.evalEpisodes = o.evalEpisodes;
  if (o.evalEvery !== undefined) t.evalEvery = o.evalEvery;
  if (o.relabelEvery !== undefined) t.relabel = { every: o.relabelEvery, perRound: o.labelsPerRound };
  return t;
}

export function localDefaultsOf(o: UiOptions): LocalDefaults {
  const fields = new Set(formFields(TRAINING_OPTIONS).map((f) => f.name));
  return Object.fromEntries(Object.entries(o).filter(([k, v]) => fields.has(k) && v !== undefined));
}

function openInBrowser(url: string, out: (line: string) => void): void {
  const [cmd, args]: [string, string[]] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  const failed = (): void => out(`agentjet ui: could not open a browser (${cmd}); open the URL above yourself`);
  try {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.on('error', failed);
    child.unref();
  } catch {
    failed();
  }
}

export async function runUi(o: UiOptions): Promise<void> {
  const out = (line: string): void => console.log(line);
  // Loaded here, not at the top: the other commands need none of the workbench services.
  const { createWorkbench } = await import('../node/workbench');
  const starting = startUiSession({
    host: o.host,
    port: o.port,
    dataDir: resolveDataDir(o.dataDir),
    connectLocal: o.connectLocal ? { model: o.model, example: o.example, clients: o.clients } : null,
    localDefaults: localDefaultsOf(o),
    createWorkbench,
    tuning: tuningOf(o),
    repoRoot: resolve(import.meta.dirname, '../..'),
    out,
  });
  // Handled from the start, so a signal right after the URL is printed is never lost.
  const stopped = exitOnSignals(
    async () => (await starting).dispose(),
    (signal) => out(`${signal}: stopping the clients and the worker…`),
  );
  const ui = await starting;
  if (o.open) openInBrowser(ui.bridge.pageUrl, out);
  await stopped;
}
