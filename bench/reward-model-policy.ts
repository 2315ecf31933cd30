// Benchmark `reward-model`, part 3: one policy-training arm for a fixed time — a fresh worker with the
// warm-started built-in model, calculator clients through the client runner, GRPO — and held-out success
// (the eval split, judged by the verifiable reward) before and after. The `rm` arm's clients are
// calculator-rm with the trained reward model deployed through its pointer module and the rule weighted 0:
// the reward model's score is the only reward. The `verifiable` arm's are calculator-agent's openai client.
// Optional: a KL penalty to the initial policy (`klCoef`), an ensemble pointer, and hooks that see the
// train episodes and updates and may hot-swap the clients (iterated labelling, reward-model-loop.ts).
import { appendFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ClientRunner, formatCompileMessage } from '../src/node/runner/index';
import { runEval, type EvalSummary } from '../src/node/eval';
import { subscribeEvents } from '../src/cli/train-events';
import { rewardModelPointerSource, type RewardEnsembleRef, type RewardModelRef } from '../src/shared/reward-model';
import { StatusSchema } from '../src/shared/swarm-protocol';
import { workerRoutes } from '../src/shared/worker-routes';
import type { RewardScale } from '../src/shared/advantages';
import type { RmForm } from '../resources/examples/calculator-rm/reward';
import { startArmWorker } from './arm-worker';

const EXAMPLES = resolve(import.meta.dirname, '..', 'resources', 'examples');

/** What every policy arm of the benchmark shares: its budget and training settings. */
export interface ArmBudget {
  minutes: number;
  clients: number;
  evalEpisodes: number;
  lr: number;
  lrEnd: number;
  threads: number;
  seed: number;
}

export interface ArmOptions extends ArmBudget {
  arm: 'rm' | 'verifiable';
  runDir: string;
  /** The reward model or ensemble (rm arm). */
  rm?: RewardModelRef | RewardEnsembleRef;
  warmEval: boolean;
  log: (line: string) => void;
  /** The arm's name in the log (default `arm`). */
  name?: string;
  /** --kl-coef of the worker: KL to the initial policy (default 0, none). */
  klCoef?: number;
  /** --scale-rewards of the worker: GRPO's divisor (default the worker's, group). */
  scaleRewards?: RewardScale;
  /** How the rm arm's client puts the score into the reward (AGENTJET_RM_FORM; default standardized). */
  rmForm?: RmForm;
  /** Called once the clients run; what it returns sees every train episode and update. */
  hooks?: (ctx: ArmContext) => ArmHooks;
}

/** What an arm's hooks may use: the worker, and the clients to hot-swap with a new pointer. */
export interface ArmContext {
  url: string;
  adminToken: string;
  runner: ClientRunner;
  entry: string;
  /** The rm arm's pointer module (the overlay path a swap rewrites). */
  pointerPath: string;
}

export interface ArmHooks {
  episode?: (e: { episodeId: string; success: boolean }) => void;
  step?: (updates: number) => void;
  /** When the arm's time is over, before the clients stop: end what the hooks started (promptly). */
  stop?: () => Promise<void>;
}

export interface ArmResult {
  arm: string;
  warm: EvalSummary | null;
  final: EvalSummary;
  updates: number;
  trainEpisodes: number;
  /** Verifiable train success over the run's quarters of episodes. */
  trainSuccessByQuarter: number[];
  trainSeconds: number;
  failedEpisodes: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function runArm(o: ArmOptions): Promise<ArmResult> {
  mkdirSync(o.runDir, { recursive: true });
  const logs = { worker: join(o.runDir, 'worker.log'), clients: join(o.runDir, 'clients.log') };
  const { worker, tokens } = await startArmWorker({
    runDir: join(o.runDir, 'worker'),
    logFile: logs.worker,
    lr: o.lr,
    threads: o.threads,
    seed: o.seed,
    extra: {
      ...(o.klCoef ? { klCoef: String(o.klCoef) } : {}),
      ...(o.scaleRewards ? { scaleRewards: o.scaleRewards } : {}),
    },
  });
  const ended: { success: boolean }[] = [];
  let updates = 0;
  let failed = 0;
  let stopping = false;
  let hooks: ArmHooks = {};
  const events = await subscribeEvents(worker.url, tokens.admin, {
    event: (e) => {
      if (e.type === 'episode_ended' && e.kind === 'train') {
        ended.push({ success: e.success ?? false });
        hooks.episode?.({ episodeId: e.episodeId, success: e.success ?? false });
      } else if (e.type === 'step') {
        updates = e.metrics.weightVersion;
        hooks.step?.(updates);
      }
    },
    error: (m) => appendFileSync(logs.worker, `${m}\n`),
  });
  const runner = new ClientRunner({
    name: `bench-${o.name ?? o.arm}`,
    serverUrl: worker.url,
    joinToken: tokens.join,
    count: o.clients,
    env: {
      AGENTJET_GROUP_SIZE: '8',
      ...(o.arm === 'rm'
        ? { AGENTJET_RULE_WEIGHT: '0', AGENTJET_RM_WEIGHT: '1', AGENTJET_RM_FORM: o.rmForm ?? 'standardized' }
        : {}),
    },
  });
  runner.on('client:log', (l) => {
    if (!stopping && l.line.includes('episode failed')) failed++;
    appendFileSync(logs.clients, `[${l.clientId}] ${l.line}\n`);
  });
  let lrTimer: NodeJS.Timeout | null = null;
  try {
    const warm = o.warmEval ? await runEval(worker.url, tokens.join, o.evalEpisodes, 'calc') : null;
    if (warm)
      o.log(
        `  [${o.name ?? o.arm}] warm start: held-out success ${(100 * warm.successRate).toFixed(1)}% (${warm.episodes} episodes, ${warm.seconds.toFixed(0)} s)`,
      );
    const entry =
      o.arm === 'rm'
        ? join(EXAMPLES, 'calculator-rm', 'client.ts')
        : join(EXAMPLES, 'calculator-agent', 'client-openai.ts');
    if (o.arm === 'rm' && !o.rm) throw new Error('the rm arm needs a reward model');
    const pointerPath = join(EXAMPLES, 'calculator-rm', 'reward-model-ref.ts');
    const overlay = o.rm ? { [pointerPath]: rewardModelPointerSource(o.rm) } : undefined;
    const started = await runner.start(overlay ? { entry, overlay } : { entry });
    if (!started.ok) throw new Error(`client did not compile:\n${started.errors.map(formatCompileMessage).join('\n')}`);
    hooks = o.hooks?.({ url: worker.url, adminToken: tokens.admin, runner, entry, pointerPath }) ?? {};
    const t0 = performance.now();
    lrTimer = setInterval(() => {
      const lr = o.lr + (o.lrEnd - o.lr) * Math.min(1, (performance.now() - t0) / (o.minutes * 60_000));
      void fetch(`${worker.url}${workerRoutes.updateConfig.path}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${tokens.admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ lr }),
      }).catch(() => undefined);
    }, 10_000);
    const progress = setInterval(
      () =>
        o.log(
          `  [${o.name ?? o.arm}] ${((performance.now() - t0) / 60_000).toFixed(1)} min · ${updates} updates · ${ended.length} train episodes · recent train success ${pct(ended.slice(-200))}`,
        ),
      60_000,
    );
    await sleep(o.minutes * 60_000);
    clearInterval(progress);
    const trainSeconds = (performance.now() - t0) / 1000;
    stopping = true; // episodes aborted by the stop below are not failures
    await hooks.stop?.();
    await runner.stop();
    for (let i = 0; i < 120; i++) {
      const res = await fetch(`${worker.url}${workerRoutes.status.path}`, {
        headers: { authorization: `Bearer ${tokens.admin}` },
      });
      if (StatusSchema.parse(await res.json()).state !== 'updating') break;
      await sleep(500);
    }
    const final = await runEval(worker.url, tokens.join, o.evalEpisodes, 'calc');
    const q = [0, 1, 2, 3].map((i) =>
      ended.slice(Math.floor((i * ended.length) / 4), Math.floor(((i + 1) * ended.length) / 4)),
    );
    return {
      arm: o.arm,
      warm,
      final,
      updates,
      trainEpisodes: ended.length,
      trainSuccessByQuarter: q.map((xs) => xs.filter((e) => e.success).length / Math.max(1, xs.length)),
      trainSeconds,
      failedEpisodes: failed,
    };
  } finally {
    if (lrTimer) clearInterval(lrTimer);
    await runner.dispose();
    events.close();
    await worker.dispose();
  }
}

const pct = (xs: { success: boolean }[]): string =>
  xs.length === 0 ? '–' : `${((100 * xs.filter((e) => e.success).length) / xs.length).toFixed(1)}%`;
