// One trial, start to end: a worker from its slot (a fresh local process, or a remote one reset),
// the events stream (every training step becomes a curve point), an evaluation before training,
// the clients, evaluation points on the schedule (each reported to the pruner, which may stop the
// trial), and at the time or step budget the clients stop and a final evaluation scores the final
// weights. A worker that dies or clients that keep crashing fail the trial with the cause; a stop
// from outside (the campaign stopping, or "stop this trial") ends it as interrupted or stopped.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CampaignStepPoint } from '../../shared/campaign/api';
import { objectiveOf, type TrialPoint } from '../../shared/campaign/objective';
import type { CampaignSpec, TrialSetup } from '../../shared/campaign/spec';
import type { SwarmEvent } from '../../shared/swarm-events';
import { EventFeed } from '../../node/event-feed';
import type { Slot, TrialWorker } from './slots';
import { playEval, startTrialClients, type RunningClients, type TaskRef } from './task-ref';

export type TrialEnd = { state: 'complete' } | { state: 'pruned' | 'failed' | 'interrupted' | 'stopped'; note: string };

export interface TrialContext {
  spec: CampaignSpec;
  task: TaskRef;
  number: number;
  setup: TrialSetup;
  slot: Slot;
  trialDir: string;
  /** Run-folder name on a remote worker. */
  runName: string;
  repoRoot: string;
  cacheDir: string;
  /** Reports a point's objective-so-far to the pruner; true: prune. */
  report: (resource: number, value: number) => Promise<boolean>;
  onStarted: (w: { label: string; runDir: string }) => void;
  onPoint: (p: TrialPoint, points: readonly TrialPoint[]) => void;
  onStep: (p: CampaignStepPoint) => void;
  /** Aborted with a TrialEnd as its reason: the campaign stops, or someone stops this trial. */
  signal: AbortSignal;
  log: (line: string) => void;
}

export interface TrialOutcome {
  state: 'complete' | 'pruned' | 'failed' | 'interrupted' | 'stopped';
  value: number | null;
  points: TrialPoint[];
  steps: number;
  note: string | null;
  worker: string;
  runDir: string | null;
  seconds: number;
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Crashes of the trial's clients before it counts as failed. */
export const maxClientCrashes = (clients: number): number => Math.max(3, 2 * clients);

export async function runTrial(c: TrialContext): Promise<TrialOutcome> {
  const t0 = performance.now();
  /** Training time: from the start of the clients (before that, 0). */
  let trainingFrom: number | null = null;
  const elapsed = (): number => (trainingFrom === null ? 0 : (performance.now() - trainingFrom) / 1000);
  const points: TrialPoint[] = [];
  let steps = 0;
  let rewardsSincePoint: number[] = [];
  let worker: TrialWorker | null = null;
  let clients: RunningClients | null = null;
  let feed: EventFeed | null = null;
  const timers: NodeJS.Timeout[] = [];
  let settle: (e: TrialEnd) => void = () => undefined;
  const ended = new Promise<TrialEnd>((r) => (settle = r));
  let finished: TrialEnd | null = null;
  const finish = (e: TrialEnd): void => {
    if (finished) return;
    finished = e;
    settle(e);
  };
  const outcome = (e: TrialEnd, value: number | null): TrialOutcome => ({
    state: e.state, value, points, steps, note: 'note' in e ? e.note : null, worker: worker?.label ?? c.slot.label, runDir: worker?.runDir ?? null, seconds: (performance.now() - t0) / 1000,
  });
  const onAbort = (): void => finish(isTrialEnd(c.signal.reason) ? c.signal.reason : { state: 'interrupted', note: 'the campaign stopped' });
  if (c.signal.aborted) return outcome({ state: 'interrupted', note: 'the campaign stopped' }, null);
  c.signal.addEventListener('abort', onAbort, { once: true });

  const spec = c.spec;
  const ev = spec.base.eval;
  const everyMinutes = ev.everySteps === undefined ? (ev.everyMinutes ?? spec.budget.minutesPerTrial / 4) : undefined;
  let evalChain: Promise<void> = Promise.resolve();
  let nextIndex = 1;
  const evaluate = (index: number, final: boolean): Promise<void> => {
    evalChain = evalChain.then(async () => {
      if (!worker || (finished && !final)) return;
      const step = steps;
      try {
        const r = await playEval(c.task, worker, ev.episodes, `t${c.number}-eval-${index}`, { repoRoot: c.repoRoot, cacheDir: c.cacheDir });
        const trainReward = rewardsSincePoint.length ? rewardsSincePoint.reduce((s, x) => s + x, 0) / rewardsSincePoint.length : null;
        rewardsSincePoint = [];
        const p: TrialPoint = { index, resource: ev.everySteps !== undefined ? step : index, step, elapsedS: elapsed(), evalSuccess: r.successRate, evalReward: r.rewardMean, evalEpisodes: r.episodes, trainReward };
        points.push(p);
        c.onPoint(p, points);
        if (r.failed > 0) c.log(`trial ${c.number}: eval ${index}: ${r.failed} of ${r.episodes} episodes failed (counted as unsuccessful)`);
        const soFar = objectiveOf(points, spec.objective);
        if (index > 0 && soFar !== null && (await c.report(p.resource, soFar)) && !final) {
          finish({ state: 'pruned', note: `stopped by the ${spec.optimizer.pruner.type} pruner at evaluation ${index} (resource ${p.resource}, step ${step}): objective so far ${soFar.toFixed(4)}` });
        }
      } catch (err) {
        c.log(`trial ${c.number}: eval ${index} failed: ${message(err)}`);
      }
    });
    return evalChain;
  };

  try {
    try {
      worker = await c.slot.start(c.setup, c.trialDir, c.runName);
    } catch (err) {
      return outcome({ state: 'failed', note: `the worker did not start: ${message(err)}` }, null);
    }
    const w = worker;
    c.onStarted({ label: w.label, runDir: w.runDir });
    void w.failed.then((why) => finish({ state: 'failed', note: why }));
    const groupSize = w.status.config.groupSize;
    const onEvent = (e: SwarmEvent): void => {
      if (e.type !== 'step') return;
      steps = e.metrics.step;
      rewardsSincePoint.push(e.metrics.rewardMean);
      c.onStep({ step: e.metrics.step, elapsedS: elapsed(), rewardMean: e.metrics.rewardMean, successRate: e.metrics.successRate });
      if (ev.everySteps !== undefined && steps % ev.everySteps === 0) void evaluate(nextIndex++, false);
      if (spec.budget.stepsPerTrial !== undefined && steps >= spec.budget.stepsPerTrial) finish({ state: 'complete' });
    };
    feed = await EventFeed.open(w.url, w.adminToken, { event: onEvent, error: (m) => c.log(`trial ${c.number}: events: ${m}`) }, { since: w.eventSeq });
    if (ev.atStart) await evaluate(0, false);
    if (finished) return await wrapUp(finished);
    let crashCount = 0;
    const lastLines = new Map<string, string[]>();
    const clientsLog = join(c.trialDir, 'clients.log');
    clients = await startTrialClients(c.task, c.setup, w, groupSize, `t${c.number}-s${c.setup.seed}`, {
      repoRoot: c.repoRoot, cacheDir: c.cacheDir,
      log: (id, line) => {
        appendFileSync(clientsLog, `[${id}] ${line}\n`);
        const l = lastLines.get(id) ?? [];
        l.push(line);
        if (l.length > 8) l.shift();
        lastLines.set(id, l);
      },
      onExit: (id, code, signal) => {
        if (finished || (code === 0 && signal === null)) return;
        crashCount++;
        if (crashCount >= maxClientCrashes(c.setup.clients)) {
          finish({ state: 'failed', note: `the clients keep crashing (${crashCount} times); ${id} exited with ${signal ?? `code ${code}`}; its last output:\n${(lastLines.get(id) ?? []).join('\n')}` });
        }
      },
    });
    trainingFrom = performance.now();
    timers.push(setTimeout(() => finish({ state: 'complete' }), spec.budget.minutesPerTrial * 60_000));
    if (everyMinutes !== undefined) {
      for (let k = 1; k * everyMinutes < spec.budget.minutesPerTrial - 1e-9; k++) timers.push(setTimeout(() => void evaluate(nextIndex++, false), k * everyMinutes * 60_000));
    }
    return await wrapUp(await ended);
  } catch (err) {
    // A call that failed because the worker died (ECONNRESET) is reported with why it died, when that is known soon.
    const why = worker ? await Promise.race([worker.failed, new Promise<null>((r) => setTimeout(() => r(null), 3000).unref())]) : null;
    finish({ state: 'failed', note: why ?? message(err) });
    return await wrapUp(finished ?? { state: 'failed', note: why ?? message(err) });
  } finally {
    c.signal.removeEventListener('abort', onAbort);
    for (const t of timers) clearTimeout(t);
    await clients?.dispose().catch(() => undefined);
    feed?.close();
    await worker?.release().catch((err: unknown) => c.log(`trial ${c.number}: releasing the worker: ${message(err)}`));
  }

  /** Stops the clients (the weights stop changing), then scores a completed trial on them. */
  async function wrapUp(e: TrialEnd): Promise<TrialOutcome> {
    for (const t of timers) clearTimeout(t);
    await clients?.dispose().catch(() => undefined);
    clients = null;
    // A running evaluation finishes (it may be the last point); against a dead worker it is not waited for.
    if (e.state === 'complete') await evalChain;
    else await Promise.race([evalChain, new Promise((r) => setTimeout(r, 3000).unref())]);
    if (e.state !== 'complete') return outcome(e, e.state === 'pruned' || e.state === 'stopped' ? objectiveOf(points, spec.objective) : null);
    await evaluate(nextIndex++, true);
    const value = objectiveOf(points, spec.objective);
    if (value === null) return outcome({ state: 'failed', note: 'no evaluation point has a value (every evaluation failed)' }, null);
    return outcome(e, value);
  }
}

function isTrialEnd(x: unknown): x is TrialEnd {
  return typeof x === 'object' && x !== null && 'state' in x && typeof x.state === 'string' && ['pruned', 'failed', 'interrupted', 'stopped'].includes(x.state) && 'note' in x && typeof x.note === 'string';
}
