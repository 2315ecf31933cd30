// Benchmark `campaign`: a real campaign on this machine — 6 trials over learning rate × group size
// (Optuna's grid sampler, successive-halving pruning on the evaluation points) of calculator-agent
// on the built-in model, 2 minutes of training per trial on local workers — run by `agentjet
// campaign run` as a child process, SIGKILLed in the middle of a trial and started again, so the
// figures include a resume. It reports the trials, what was pruned, the best configuration, the
// wall time, and where the report is.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CampaignStore } from '../src/node/campaign/campaign-store';
import { campaignPaths } from '../src/node/campaign/campaign-files';
import { bestConfiguration, countStates } from '../src/shared/campaign/trials';
import { CampaignSpecSchema } from '../src/shared/campaign/spec';
import { trialsTable } from '../src/cli/campaign-report';
import { argValue, round } from './engine';

const ROOT = resolve(import.meta.dirname, '..');
const NAME = 'bench-lr-x-group';

function campaignYaml(trials: number, minutes: number, evalEpisodes: number, everyMinutes: number): string {
  return `name: ${NAME}
question: Which learning rate and GRPO group size raise calculator-agent's held-out success most in ${minutes} minutes of training on a CPU?
base:
  task: calculator-agent
  clients: 2
  training: { strategy: C2, batch: 4, defaultMaxTokens: 48, merge: linear }
  worker: { threads: 1, seed: 1 }
  eval: { episodes: ${evalEpisodes}, everyMinutes: ${everyMinutes}, atStart: false }
search:
  lr: { float: [1.0e-5, 3.0e-3], log: true, grid: [1.0e-4, 3.5e-4, 1.0e-3] }
  groupSize: { choice: [2, 4] }
objective: { metric: eval_success, summary: auc }
optimizer:
  sampler: grid
  seed: 0
  pruner: { type: successive_halving, minResource: 1, reductionFactor: 2 }
budget: { trials: ${trials}, minutesPerTrial: ${minutes} }
workers: { local: 1 }
`;
}

function runCli(
  file: string,
  dataDir: string,
  onLine: (line: string) => void,
): { kill: () => void; exited: Promise<number | null> } {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'agentjet.mjs'), 'campaign', 'run', file, '--data-dir', dataDir],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } },
  );
  let buf = '';
  const take = (c: Buffer): void => {
    buf += c.toString();
    const lines = buf.split('\n');
    buf = lines.pop() ?? '';
    for (const l of lines) onLine(l);
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  return { kill: () => child.kill('SIGKILL'), exited: new Promise((r) => child.once('exit', (code) => r(code))) };
}

export async function benchCampaign(args: string[]): Promise<Record<string, unknown>> {
  const trials = Number(argValue(args, '--trials') ?? 6); // of the 6-point grid; `--smoke` runs 2
  const minutes = Number(argValue(args, '--minutes-per-trial') ?? 2);
  const evalEpisodes = Number(argValue(args, '--eval-episodes') ?? 16);
  const killAfter = Number(argValue(args, '--kill-during-trial') ?? 2);
  if (!Number.isInteger(killAfter) || killAfter < 0 || killAfter >= trials)
    throw new Error(`--kill-during-trial ${killAfter}: trials are numbered 0 to ${trials - 1}`);
  const dataDir = resolve(argValue(args, '--data-dir') ?? mkdtempSync(join(tmpdir(), 'agentjet-bench-campaign-')));
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, `${NAME}.yaml`);
  writeFileSync(file, campaignYaml(trials, minutes, evalEpisodes, minutes / 4));
  console.log(
    `campaign bench: ${trials} trials (lr {1e-4, 3.5e-4, 1e-3} × groupSize {2, 4}, grid sampler, successive halving on evaluation points every ${minutes / 4} min of ${evalEpisodes} held-out episodes), ${minutes} min of training per trial, calculator-agent on the built-in model, 1 local worker at a time; the runner is SIGKILLed during trial ${killAfter} and started again`,
  );
  console.log(`data folder ${dataDir}`);
  const t0 = performance.now();
  let killed = false;
  const first = runCli(file, dataDir, (line) => {
    console.log(`  ${line}`);
    if (!killed && line.startsWith(`trial ${killAfter} · eval 1 `)) {
      killed = true;
      console.log(`  [bench] SIGKILL the campaign runner during trial ${killAfter}`);
      first.kill();
    }
  });
  const firstCode = await first.exited;
  if (!killed)
    throw new Error(`the campaign ended (exit ${firstCode}) before trial ${killAfter} reached its first evaluation`);
  console.log('  [bench] starting the campaign again (resume)');
  const second = runCli(file, dataDir, (line) => console.log(`  ${line}`));
  const code = await second.exited;
  if (code !== 0) throw new Error(`the resumed campaign exited with code ${code}`);
  const wallMinutes = (performance.now() - t0) / 60_000;

  const store = CampaignStore.open(join(dataDir, 'workbench.sqlite'));
  try {
    const trials = store.trials(NAME);
    const spec = CampaignSpecSchema.parse(store.spec(NAME));
    const done = trials.filter((t) => t.state !== 'interrupted');
    const counts = countStates(trials);
    const best = bestConfiguration(trials, spec.objective);
    const report = campaignPaths(dataDir, NAME).reportHtml;
    console.log(trialsTable(done, spec));
    console.log(
      `interrupted by the kill and re-run: trial ${
        trials
          .filter((t) => t.state === 'interrupted')
          .map((t) => t.number)
          .join(', ') || 'none'
      }`,
    );
    console.log(`report: ${report}${existsSync(report) ? '' : ' (missing!)'}`);
    return {
      bench: 'campaign',
      trials: counts.trials,
      completed: counts.completed,
      pruned: counts.pruned,
      failed: counts.failed,
      best_objective: best?.spread ? round(best.spread.mean, 4) : null,
      best_params: best?.params ?? null,
      interrupted: counts.interrupted,
      wall_minutes: round(wallMinutes, 2),
      report,
    };
  } finally {
    store.close();
  }
}
