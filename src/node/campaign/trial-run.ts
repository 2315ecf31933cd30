// One trial, start to end: a worker from its slot (a fresh local process, or a remote one reset; a task
// of several roles: one per role, or one shared, each in its own folder under the trial's),
// the events stream (every training step becomes a curve point), an evaluation before training,
// the clients, evaluation points on the schedule (each reported to the pruner, which may stop the
// trial), and at the time or step budget the clients stop and a final evaluation scores the final
// weights. A worker that dies or clients that keep crashing fail the trial with the cause; a stop
// from outside (the campaign stopping, or "stop this trial") ends it as interrupted or stopped.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CampaignStepPoint } from '../../shared/campaign/api';
import { objectiveOf, type TrialPoint } from '../../shared/campaign/objective';
import type { RoleWorker } from '../../shared/campaign/roles';
import type { CampaignSpec, TrialSetup } from '../../shared/campaign/spec';
import type { TrialRow } from '../../shared/campaign/trials';
import type { SwarmEvent } from '../../shared/swarm-events';
import { EventFeed } from '../event-feed';
import type { Slot, TrialWorker } from './slots';
import { playRoleEval, startRoleClients } from './role-task';
import { playEval, startTrialClients, type EvalFigures, type RunningClients, type TaskRef } from './task-ref';

/** What a runner (campaign or study) tells its listener of its trials as they run. */
export type TrialEvent =
  | { type: 'trial_started'; trial: TrialRow }
  | { type: 'trial_point'; trial: TrialRow; point: TrialPoint }
  | { type: 'trial_step'; number: number; point: CampaignStepPoint }
  | { type: 'trial_ended'; trial: TrialRow }
  | { type: 'note'; line: string };

export type TrialEnd = { state: 'complete' } | { state: 'pruned' | 'failed' | 'interrupted' | 'stopped'; note: string };

export interface TrialContext {
  spec: CampaignSpec;
  task: TaskRef;
  /** Held-out evaluation on another task than the one trained (default: the same). */
  evalTask?: TaskRef;
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

export function runTrial(c: TrialContext): Promise<TrialOutcome> {
  return new TrialRun(c).run();
}

/** One trial's state: its worker, event feed, clients, timers, evaluation chain and points. */
class TrialRun {
  private readonly t0 = performance.now();
  /** Training time: from the start of the clients (before that, 0). */
  private trainingFrom: number | null = null;
  private readonly points: TrialPoint[] = [];
  private steps = 0;
  private episodes = 0;
  private rewardsSincePoint: number[] = [];
  /** The trial's workers (one; or one per role of a task of several roles), with the roles each serves. */
  private readonly workers: { w: TrialWorker; roles: string[] }[] = [];
  /** Each worker's last step; the trial's steps are their sum (equal total updates across layouts). */
  private readonly stepsBy = new Map<number, number>();
  private clients: RunningClients | null = null;
  private readonly feeds: EventFeed[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private settle: (e: TrialEnd) => void = () => undefined;
  private readonly ended = new Promise<TrialEnd>((r) => (this.settle = r));
  private finished: TrialEnd | null = null;
  private evalChain: Promise<void> = Promise.resolve();
  private nextIndex = 1;
  private readonly onAbort = (): void =>
    this.finish(
      isTrialEnd(this.c.signal.reason) ? this.c.signal.reason : { state: 'interrupted', note: 'the campaign stopped' },
    );

  constructor(private readonly c: TrialContext) {}

  async run(): Promise<TrialOutcome> {
    const c = this.c;
    if (c.signal.aborted) return this.outcome({ state: 'interrupted', note: 'the campaign stopped' }, null);
    c.signal.addEventListener('abort', this.onAbort, { once: true });
    try {
      return await this.train();
    } catch (err) {
      // A call that failed because the worker died (ECONNRESET) is reported with why it died, when that is known soon.
      const why =
        this.workers.length > 0
          ? await Promise.race([
              ...this.workers.map(({ w }) => w.failed),
              new Promise<null>((r) => setTimeout(() => r(null), 3000).unref()),
            ])
          : null;
      this.finish({ state: 'failed', note: why ?? message(err) });
      return await this.wrapUp(this.finished ?? { state: 'failed', note: why ?? message(err) });
    } finally {
      c.signal.removeEventListener('abort', this.onAbort);
      for (const t of this.timers) clearTimeout(t);
      await this.clients?.dispose().catch(() => undefined);
      for (const f of this.feeds) f.close();
      await Promise.all(
        this.workers.map(({ w }) =>
          w.release().catch((err: unknown) => c.log(`trial ${c.number}: releasing a worker: ${message(err)}`)),
        ),
      );
    }
  }

  /** The worker, the event feed, the first evaluation, the clients and the budget; then the wrap-up. */
  private async train(): Promise<TrialOutcome> {
    const c = this.c;
    for (const rw of c.setup.workers ?? [null]) {
      try {
        this.workers.push({ w: await this.startWorker(rw), roles: rw?.roles ?? [] });
      } catch (err) {
        const which = rw ? `the ${rw.name} worker` : 'the worker';
        return this.outcome({ state: 'failed', note: `${which} did not start: ${message(err)}` }, null);
      }
    }
    const first = this.workers[0]!.w;
    c.onStarted({ label: first.label, runDir: first.runDir });
    for (const [i, { w, roles }] of this.workers.entries()) {
      const who = roles.length > 0 ? `the ${roles.join(' + ')} worker: ` : '';
      void w.failed.then((why) => this.finish({ state: 'failed', note: `${who}${why}` }));
      const feed = await EventFeed.open(
        w.url,
        w.adminToken,
        { event: (e) => this.onEvent(e, i), error: (m) => c.log(`trial ${c.number}: events: ${m}`) },
        { since: w.eventSeq },
      );
      this.feeds.push(feed);
    }
    if (c.spec.base.eval.atStart) await this.evaluate(0, false);
    if (this.finished) return await this.wrapUp(this.finished);
    this.clients = await this.startClients(first);
    this.trainingFrom = performance.now();
    this.scheduleBudget();
    return await this.wrapUp(await this.ended);
  }

  /** The trial's worker, or one of a task of several roles (its model and options, in a folder of its own). */
  private startWorker(rw: RoleWorker | null): Promise<TrialWorker> {
    const c = this.c;
    if (!rw) return c.slot.start(c.setup, c.trialDir, c.runName);
    const dir = join(c.trialDir, rw.name);
    mkdirSync(dir, { recursive: true });
    return c.slot.start({ ...c.setup, model: rw.model, training: rw.training }, dir, `${c.runName}-${rw.name}`);
  }

  /** Each role's worker (a shared worker serves every role). */
  private byRole(): Record<string, TrialWorker> {
    return Object.fromEntries(this.workers.flatMap(({ w, roles }) => roles.map((r) => [r, w] as const)));
  }

  private finish(e: TrialEnd): void {
    if (this.finished) return;
    this.finished = e;
    this.settle(e);
  }

  private elapsed(): number {
    return this.trainingFrom === null ? 0 : (performance.now() - this.trainingFrom) / 1000;
  }

  private outcome(e: TrialEnd, value: number | null): TrialOutcome {
    const w = this.workers[0]?.w;
    return {
      state: e.state,
      value,
      points: this.points,
      steps: this.steps,
      note: 'note' in e ? e.note : null,
      worker: w?.label ?? this.c.slot.label,
      runDir: w?.runDir ?? null,
      seconds: (performance.now() - this.t0) / 1000,
    };
  }

  /** Every training step becomes a curve point; the step budget and step-scheduled evaluations follow it. */
  private onEvent(e: SwarmEvent, worker: number): void {
    if (e.type !== 'step') return;
    const { spec } = this.c;
    const everySteps = spec.base.eval.everySteps;
    this.stepsBy.set(worker, e.metrics.step);
    this.steps = [...this.stepsBy.values()].reduce((a, b) => a + b, 0);
    this.episodes += e.episodeIds?.length ?? 0;
    this.rewardsSincePoint.push(e.metrics.rewardMean);
    this.c.onStep({
      step: this.steps,
      elapsedS: this.elapsed(),
      rewardMean: e.metrics.rewardMean,
      successRate: e.metrics.successRate,
    });
    if (everySteps !== undefined && this.steps % everySteps === 0) void this.evaluate(this.nextIndex++, false);
    const { stepsPerTrial, episodesPerTrial } = spec.budget;
    if (stepsPerTrial !== undefined && this.steps >= stepsPerTrial) this.finish({ state: 'complete' });
    if (episodesPerTrial !== undefined && this.episodes >= episodesPerTrial) this.finish({ state: 'complete' });
  }

  /** Queues an evaluation (one at a time); its point goes to the pruner, which may end the trial. */
  private evaluate(index: number, final: boolean): Promise<void> {
    this.evalChain = this.evalChain.then(async () => {
      const { c } = this;
      const { spec } = c;
      const ev = spec.base.eval;
      if (this.workers.length === 0 || (this.finished && !final)) return;
      const step = this.steps;
      try {
        const r = await this.playEvalPoint(index);
        const since = this.rewardsSincePoint;
        const trainReward = since.length ? since.reduce((s, x) => s + x, 0) / since.length : null;
        this.rewardsSincePoint = [];
        const p: TrialPoint = {
          index,
          resource: ev.everySteps !== undefined ? step : index,
          step,
          elapsedS: this.elapsed(),
          evalSuccess: r.successRate,
          evalReward: r.rewardMean,
          evalEpisodes: r.episodes,
          trainReward,
          ...(r.roles ? { roles: r.roles } : {}),
        };
        this.points.push(p);
        c.onPoint(p, this.points);
        if (r.failed > 0)
          c.log(
            `trial ${c.number}: eval ${index}: ${r.failed} of ${r.episodes} episodes failed (counted as unsuccessful)`,
          );
        const soFar = objectiveOf(this.points, spec.objective);
        if (index > 0 && soFar !== null && (await c.report(p.resource, soFar)) && !final) {
          this.finish({
            state: 'pruned',
            note:
              `stopped by the ${spec.optimizer.pruner.type} pruner at evaluation ${index} (resource ` +
              `${p.resource}, step ${step}): objective so far ${soFar.toFixed(4)}`,
          });
        }
      } catch (err) {
        c.log(`trial ${c.number}: eval ${index} failed: ${message(err)}`);
      }
    });
    return this.evalChain;
  }

  /** One evaluation's figures (a task of several roles: rounds on every role's worker, and each role's success). */
  private playEvalPoint(index: number): Promise<EvalFigures & { roles?: Record<string, number> }> {
    const c = this.c;
    const task = c.evalTask ?? c.task;
    const id = `t${c.number}-eval-${index}`;
    if (task.kind === 'roles') return playRoleEval(this.byRole(), c.spec.base.eval.episodes, id);
    return playEval(task, this.workers[0]!.w, c.spec.base.eval.episodes, id, {
      repoRoot: c.repoRoot,
      cacheDir: c.cacheDir,
    });
  }

  /** The trial's clients, their output in clients.log; clients that keep crashing fail the trial. */
  private startClients(w: TrialWorker): Promise<RunningClients> {
    const c = this.c;
    let crashCount = 0;
    const lastLines = new Map<string, string[]>();
    const clientsLog = join(c.trialDir, 'clients.log');
    const o = {
      repoRoot: c.repoRoot,
      cacheDir: c.cacheDir,
      log: (id: string, line: string) => {
        appendFileSync(clientsLog, `[${id}] ${line}\n`);
        const l = lastLines.get(id) ?? [];
        l.push(line);
        if (l.length > 8) l.shift();
        lastLines.set(id, l);
      },
      onExit: (id: string, code: number | null, signal: string | null) => {
        if (this.finished || (code === 0 && signal === null)) return;
        crashCount++;
        if (crashCount >= maxClientCrashes(c.setup.clients)) {
          this.finish({
            state: 'failed',
            note:
              `the clients keep crashing (${crashCount} times); ${id} exited with ` +
              `${signal ?? `code ${code}`}; its last output:\n${(lastLines.get(id) ?? []).join('\n')}`,
          });
        }
      },
    };
    const name = `t${c.number}-s${c.setup.seed}`;
    if (c.task.kind === 'roles') return startRoleClients(c.task, this.byRole(), c.setup.clients, name, o);
    return startTrialClients(c.task, c.setup, w, w.status.config.groupSize, name, o);
  }

  /** The time budget, and the evaluations scheduled by time (by default four per trial). */
  private scheduleBudget(): void {
    const { spec } = this.c;
    const ev = spec.base.eval;
    const minutes = spec.budget.minutesPerTrial;
    this.timers.push(setTimeout(() => this.finish({ state: 'complete' }), minutes * 60_000));
    const everyMinutes = ev.everySteps === undefined ? (ev.everyMinutes ?? minutes / 4) : undefined;
    if (everyMinutes === undefined) return;
    for (let k = 1; k * everyMinutes < minutes - 1e-9; k++)
      this.timers.push(setTimeout(() => void this.evaluate(this.nextIndex++, false), k * everyMinutes * 60_000));
  }

  /** Stops the clients (the weights stop changing), then scores a completed trial on them. */
  private async wrapUp(e: TrialEnd): Promise<TrialOutcome> {
    const { spec } = this.c;
    for (const t of this.timers) clearTimeout(t);
    await this.clients?.dispose().catch(() => undefined);
    this.clients = null;
    // A running evaluation finishes (it may be the last point); against a dead worker it is not waited for.
    if (e.state === 'complete') await this.evalChain;
    else await Promise.race([this.evalChain, new Promise((r) => setTimeout(r, 3000).unref())]);
    if (e.state !== 'complete')
      return this.outcome(
        e,
        e.state === 'pruned' || e.state === 'stopped' ? objectiveOf(this.points, spec.objective) : null,
      );
    await this.evaluate(this.nextIndex++, true);
    const value = objectiveOf(this.points, spec.objective);
    if (value === null)
      return this.outcome({ state: 'failed', note: 'no evaluation point has a value (every evaluation failed)' }, null);
    return this.outcome(e, value);
  }
}

function isTrialEnd(x: unknown): x is TrialEnd {
  return (
    typeof x === 'object' &&
    x !== null &&
    'state' in x &&
    typeof x.state === 'string' &&
    ['pruned', 'failed', 'interrupted', 'stopped'].includes(x.state) &&
    'note' in x &&
    typeof x.note === 'string'
  );
}
