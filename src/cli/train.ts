// `agentjet train <example>`: headless training. Starts a local worker (built-in model) in this
// process and N swarm clients, follows the worker's events to print batch progress and one line per
// step (reward, success, merge ratio, step time, and per task — calc | guess — from the task ids of
// the step's count of oldest ended train episodes), writes metrics.jsonl to the run dir, and after
// K steps stops the clients and the worker and prints a summary table. `cocktail` mixes both tasks
// (--mix: the calculator share).
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startWorker } from '../../gpu-worker/src/worker';
import type { SwarmEvent } from '../shared/swarm-events';
import type { StepMetrics } from '../shared/swarm-protocol';
import { EXAMPLES_DIR, startClients, type ClientsHandle } from '../node/train-clients';
import { runEval } from '../node/eval';
import { subscribeEvents, type EventsSubscription } from './train-events';
import type { TrainOptions } from './train-options';
import {
  evalTable,
  formatEval,
  formatProgress,
  formatStep,
  stepRow,
  summaryTable,
  type EvalRow,
  type StepRow,
} from './train-report';
import {
  exampleTasks,
  TaskTally,
  TRAIN_EXAMPLES,
  type TaskBreakdown,
  type TaskKey,
  type TrainExample,
} from '../node/train-tasks';
import { configFromFlags } from './worker';

export function parseExample(name: string | undefined): TrainExample {
  const found = TRAIN_EXAMPLES.find((n) => n === name);
  if (!found) throw new Error(`name an example: ${TRAIN_EXAMPLES.join(', ')}`);
  return found;
}

function stamp(d = new Date()): string {
  return d.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

export interface TrainIo {
  out: (line: string) => void;
  /** Rewrites the current terminal line (progress); default: nothing when stdout is not a TTY. */
  progress?: (line: string) => void;
}

const defaultIo = (): TrainIo => ({
  out: (line) => console.log(line),
  ...(process.stdout.isTTY ? { progress: (line: string) => process.stdout.write(`\r\x1b[2K${line}`) } : {}),
});

interface RunFilesOfTrain {
  metrics: string;
  eval: string;
  workerLog: string;
  clientsLog: string;
}

/** Held-out evals, one after another (each of the example's tasks), recorded and printed. */
function evaluator(
  url: string,
  joinToken: string,
  o: TrainOptions,
  keys: readonly TaskKey[],
  files: RunFilesOfTrain,
  io: TrainIo,
) {
  const evals: EvalRow[] = [];
  let chain: Promise<void> = Promise.resolve();
  const evaluate = (afterStep: number): Promise<void> => {
    chain = chain.then(async () => {
      try {
        for (const task of keys) {
          const row = { afterStep, task, ...(await runEval(url, joinToken, o.evalEpisodes, task)) };
          evals.push(row);
          appendFileSync(files.eval, `${JSON.stringify({ time: Date.now(), ...row })}\n`);
          io.progress?.('');
          io.out(formatEval(row));
        }
      } catch (err) {
        io.out(`eval after step ${afterStep} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
    return chain;
  };
  return { evals, evaluate, idle: () => chain };
}

/** Folds the worker's events into step rows (printed, appended to metrics.jsonl); `done` settles after o.steps. */
function stepRecorder(
  o: TrainOptions,
  keys: readonly TaskKey[],
  files: RunFilesOfTrain,
  io: TrainIo,
  onStep: (count: number) => void,
) {
  const rows: StepRow[] = [];
  const tally = new TaskTally();
  let last = performance.now();
  let finish: () => void = () => undefined;
  const done = new Promise<void>((r) => (finish = r));
  const record = (m: StepMetrics, tasks: TaskBreakdown, mergeRatio: number | null): void => {
    const now = performance.now();
    const row = stepRow(m, mergeRatio, (now - last) / 1000, tasks);
    last = now;
    rows.push(row);
    appendFileSync(files.metrics, `${JSON.stringify({ time: Date.now(), ...row })}\n`);
    io.progress?.('');
    io.out(formatStep(row, rows.length, o.steps, keys));
    onStep(rows.length);
    if (rows.length >= o.steps) finish();
  };
  const onEvent = (e: SwarmEvent): void => {
    if (rows.length >= o.steps) return;
    if (e.type === 'batch_progress') io.progress?.(formatProgress(e.progress));
    else if (e.type === 'episode_ended' && e.kind === 'train') tally.add(e.taskId, e.reward, e.success);
    else if (e.type === 'step')
      record(e.metrics, tally.take(keys, e.metrics.episodes), e.merge?.compressionRatio ?? null);
    else if (e.type === 'log' && (e.level === 'error' || e.level === 'warn'))
      appendFileSync(files.workerLog, `[${e.level}] ${e.source}: ${e.message}\n`);
  };
  return { rows, done, onEvent };
}

/** Resolves on the first SIGINT (the run then stops cleanly). */
async function untilDoneOrInterrupted(done: Promise<void>): Promise<void> {
  let onSignal: () => void = () => undefined;
  const stopEarly = new Promise<void>((r) => (onSignal = r));
  const handler = (): void => onSignal();
  process.once('SIGINT', handler);
  try {
    await Promise.race([done, stopEarly]);
  } finally {
    process.off('SIGINT', handler);
  }
}

export async function runTrain(example: TrainExample, o: TrainOptions, io: TrainIo = defaultIo()): Promise<StepRow[]> {
  if (o.mix !== undefined && example !== 'cocktail') throw new Error('--mix applies to the cocktail example only');
  const keys = exampleTasks(example);
  const mix = example === 'cocktail' ? (o.mix ?? 0.5) : undefined;
  const runDir = resolve(o.runDir ?? join('runs', `train-${stamp()}`));
  mkdirSync(runDir, { recursive: true });
  const files = {
    metrics: join(runDir, 'metrics.jsonl'),
    eval: join(runDir, 'eval.jsonl'),
    workerLog: join(runDir, 'worker.log'),
    clientsLog: join(runDir, 'clients.log'),
  };
  const given = configFromFlags(o);
  const tokens = { admin: randomBytes(16).toString('hex'), join: randomBytes(16).toString('hex') };
  const worker = await startWorker(
    { ...given, runDir, model: 'builtin', port: given.port ?? 0, training: given.training ?? {} },
    { tokens, log: (line) => appendFileSync(files.workerLog, `${line}\n`) },
  );
  const t = worker.swarm.training;
  io.out(
    'agentjet train ' +
      `${example}${mix !== undefined ? ` (mix ${mix} calc / ${Number((1 - mix).toFixed(3))} guess)` : ''}: worker ` +
      `${worker.url} · ${o.clients} ${o.client} client(s) · ${o.steps} steps · strategy ${t.strategy} batch ` +
      `${t.batch} group ${t.groupSize} · lr ${t.lr}`,
  );
  io.out(`  run dir ${runDir} (metrics.jsonl, worker.log, clients.log)`);
  const ev = evaluator(worker.url, tokens.join, o, keys, files, io);
  const steps = stepRecorder(
    o,
    keys,
    files,
    io,
    (n) => o.evalEvery > 0 && n % o.evalEvery === 0 && void ev.evaluate(n),
  );
  const { rows } = steps;
  let events: EventsSubscription | null = null;
  let clients: ClientsHandle | null = null;
  try {
    events = await subscribeEvents(worker.url, tokens.admin, {
      event: steps.onEvent,
      error: (m) => appendFileSync(files.workerLog, `${m}\n`),
    });
    if (o.evalEvery > 0) await ev.evaluate(0);
    clients = await startClients({
      exampleDir: join(EXAMPLES_DIR, example),
      kind: o.client,
      count: o.clients,
      serverUrl: worker.url,
      joinToken: tokens.join,
      groupSize: t.groupSize,
      log: (id, line) => appendFileSync(files.clientsLog, `[${id}] ${line}\n`),
      env: mix !== undefined ? { AGENTJET_MIX: String(mix) } : {},
    });
    await untilDoneOrInterrupted(steps.done);
    await ev.idle();
    io.progress?.('');
  } finally {
    await clients?.dispose();
    events?.close();
    await worker.dispose();
  }
  const evals = ev.evals;
  io.out(rows.length < o.steps ? `stopped after ${rows.length} of ${o.steps} steps` : `done: ${rows.length} steps`);
  io.out(summaryTable(rows, keys));
  if (evals.length > 0) io.out(evalTable(evals));
  return rows;
}
