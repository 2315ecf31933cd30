// Runs a campaign: Optuna (its own process, study in `<campaign>/study.sqlite`) proposes trials,
// each runs on a free slot (local worker processes, remote workers reset per trial), its points go
// to the pruner and everything to the store; the report is rewritten after every trial. Resuming
// is starting again: the study is reopened, trials a dead runner left running are failed and
// re-run (recover), and the budget counts what earlier sessions finished. The workbench talks to
// a runner through the store's command table (stop, stop a trial, the agent's controls).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configKey, gridOf, gridSize, type Params } from '../../shared/campaign/space';
import { trialSetup, type CampaignSpec } from '../../shared/campaign/spec';
import { countStates, type TrialRow } from '../../shared/campaign/trials';
import type { CampaignControl, RunnerHooks } from './campaign-control';
import { slotsFor, studyOptions } from './campaign-plan';
import { campaignPaths, publicSpec, takeLock, trialDir, type CampaignPaths } from './campaign-files';
import type { CampaignStore } from './campaign-store';
import { OptunaClient, type OptunaTrial } from './optuna-client';
import { writeReports } from './report-writer';
import type { Slot } from './slots';
import { resolveTask, type TaskRef } from './task-ref';
import { startedRow, tellOptimizer, trialSource, trialState, type AskedTrial } from './trial-record';
import { runTrial, type TrialEnd, type TrialEvent, type TrialOutcome } from './trial-run';

export type RunnerEvent = { type: 'started'; resumed: boolean; rerun: number[]; slots: string[] } | TrialEvent;

export interface CampaignRunnerOptions {
  spec: CampaignSpec;
  baseDir: string;
  dataDir: string;
  store: CampaignStore;
  repoRoot: string;
  examplesDir: string;
  onEvent?: (e: RunnerEvent) => void;
  hooks?: RunnerHooks;
  python?: string;
  heartbeatMs?: number;
}

export interface CampaignResult {
  campaignId: string;
  state: 'done' | 'stopped' | 'failed';
  trials: TrialRow[];
  paths: CampaignPaths;
  wallS: number;
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export class CampaignRunner implements CampaignControl {
  readonly spec: CampaignSpec;
  readonly campaignId: string;
  readonly paths: CampaignPaths;
  private readonly task: TaskRef;
  private optuna: OptunaClient | null = null;
  private readonly aborts = new Map<number, AbortController>();
  private readonly campaignAbort = new AbortController();
  /** Trials in flight (their bookkeeping included), awaited when the runner stops. */
  private readonly inflight = new Set<Promise<unknown>>();
  private wake: () => void = () => undefined;
  private stopRequested: string | null = null;
  private readonly t0 = performance.now();
  private lastBeat = performance.now();
  private priorWallS = 0;
  private finishedBefore = { done: 0, failed: 0 };

  constructor(private readonly o: CampaignRunnerOptions) {
    this.spec = o.spec;
    this.campaignId = o.spec.name;
    this.paths = campaignPaths(o.dataDir, o.spec.name);
    this.task = resolveTask(o.spec.base.task, o.baseDir, o.examplesDir);
  }

  // ----- CampaignControl -----

  trials(): TrialRow[] {
    return this.o.store.trials(this.campaignId);
  }

  async enqueue(params: Params, source: 'agent', rationale: string): Promise<void> {
    await this.requireOptuna().enqueue(params, { seed: 0, source, rationale, configKey: configKey(params) });
    for (let k = 1; k < this.spec.seeds; k++)
      await this.requireOptuna().enqueue(params, { seed: k, source: 'seed', rationale, configKey: configKey(params) });
    this.wake();
  }

  stopTrial(number: number, reason: string): boolean {
    const ac = this.aborts.get(number);
    if (!ac) return false;
    ac.abort({ state: 'stopped', note: reason } satisfies TrialEnd);
    return true;
  }

  running(): number[] {
    return [...this.aborts.keys()];
  }

  /** Asks the runner to stop: no new trials; running ones end as interrupted and re-run on resume. */
  stop(reason = 'stopped'): void {
    this.stopRequested ??= reason;
    this.wake();
  }

  // ----- the run -----

  async run(): Promise<CampaignResult> {
    const release = takeLock(this.paths);
    const heartbeat = setInterval(() => void this.beat(), this.o.heartbeatMs ?? 2000);
    heartbeat.unref();
    let state: CampaignResult['state'] = 'done';
    try {
      const slots = await this.prepare();
      await this.o.hooks?.start?.(this).catch((err: unknown) => this.note(`agent: ${message(err)}`));
      state = await this.loop(slots);
    } catch (err) {
      state = 'failed';
      this.o.store.setState(this.campaignId, 'failed', message(err), Date.now());
      throw err;
    } finally {
      clearInterval(heartbeat);
      this.campaignAbort.abort({
        state: 'interrupted',
        note: this.stopRequested ?? 'the campaign runner stopped',
      } satisfies TrialEnd);
      await Promise.race([Promise.allSettled(this.inflight), new Promise((r) => setTimeout(r, 90_000).unref())]);
      this.markLeftoverInterrupted();
      await this.beat().catch(() => undefined);
      if (state !== 'failed') this.o.store.setState(this.campaignId, state, this.stopRequested, Date.now());
      this.o.store.heartbeat(this.campaignId, null, Date.now());
      await this.refreshImportance().catch(() => undefined);
      await writeReports(this.o.store, this.campaignId, this.paths).catch((err: unknown) =>
        this.note(`report: ${message(err)}`),
      );
      await this.o.hooks?.dispose?.();
      await this.optuna?.dispose();
      release();
    }
    return {
      campaignId: this.campaignId,
      state,
      trials: this.trials(),
      paths: this.paths,
      wallS: this.priorWallS + (performance.now() - this.t0) / 1000,
    };
  }

  private async prepare(): Promise<Slot[]> {
    const { spec, store } = this.o;
    mkdirSync(this.paths.trials, { recursive: true });
    writeFileSync(this.paths.spec, `${JSON.stringify(publicSpec(spec), null, 2)}\n`);
    const resumed = store.has(this.campaignId);
    store.upsertCampaign({
      campaignId: this.campaignId,
      name: spec.name,
      question: spec.question,
      spec: publicSpec(spec),
      dir: this.paths.dir,
      createdAt: Date.now(),
    });
    this.priorWallS = store.summary(this.campaignId, Date.now()).wallS;
    store.setState(this.campaignId, 'running', null, Date.now());
    store.heartbeat(this.campaignId, process.pid, Date.now());
    this.optuna = await OptunaClient.start(this.o.python);
    await this.optuna.open(studyOptions(spec, this.paths.study));
    const rerun = await this.optuna.recover();
    for (const r of rerun) {
      const row = store.trials(this.campaignId).find((t) => t.number === r.number);
      if (row)
        store.putTrial({
          ...row,
          state: 'interrupted',
          endedAt: row.endedAt ?? Date.now(),
          note: 'the campaign runner stopped while it ran; it runs again',
        });
    }
    this.countPrior(await this.optuna.trials());
    const slots = slotsFor(spec, this.o.repoRoot);
    this.emit({ type: 'started', resumed, rerun: rerun.map((r) => r.number), slots: slots.map((s) => s.label) });
    return slots;
  }

  private countPrior(trials: readonly OptunaTrial[]): void {
    const counted = trials.filter((t) => t.attrs['interrupted'] !== true);
    this.finishedBefore = {
      done: counted.filter((t) => t.state === 'complete' || t.state === 'pruned' || t.state === 'fail').length,
      failed: counted.filter((t) => t.state === 'fail').length,
    };
  }

  private async loop(slots: Slot[]): Promise<'done' | 'stopped'> {
    const free = [...slots];
    const running = new Map<number, Promise<void>>();
    const finished = { done: this.finishedBefore.done, failed: this.finishedBefore.failed };
    for (;;) {
      await this.takeCommands();
      if (this.stopRequested) break;
      while (free.length > 0 && this.canStart(finished, running.size)) {
        const slot = free.shift()!;
        const asked = await this.requireOptuna().ask({ seed: 0, source: 'optimizer' });
        const p = this.execute(asked, slot)
          .then(
            (state) => {
              finished.done += state === 'interrupted' ? 0 : 1;
              finished.failed += state === 'failed' ? 1 : 0;
            },
            (err: unknown) => {
              // The trial's bookkeeping failed (the store, the optimiser): counted as a failure, the campaign goes on.
              this.note(`trial ${asked.number}: ${message(err)}`);
              finished.done += 1;
              finished.failed += 1;
            },
          )
          .finally(() => {
            running.delete(asked.number);
            this.inflight.delete(p);
            free.push(slot);
          });
        running.set(asked.number, p);
        this.inflight.add(p);
      }
      if (running.size === 0) break;
      await Promise.race([...running.values(), new Promise<void>((r) => (this.wake = r))]);
    }
    this.campaignAbort.abort({ state: 'interrupted', note: this.stopRequested ?? 'stopped' } satisfies TrialEnd);
    await Promise.allSettled(running.values());
    return this.stopRequested ? 'stopped' : 'done';
  }

  private canStart(finished: { done: number; failed: number }, running: number): boolean {
    const { budget, optimizer, search, seeds } = this.spec;
    if (finished.done + running >= budget.trials) return false;
    if (finished.failed >= (budget.maxFailures ?? budget.trials))
      return this.once('failures', `stopping: ${finished.failed} trials failed (maxFailures)`);
    const wall = this.priorWallS + (performance.now() - this.t0) / 1000;
    if (budget.totalHours !== undefined && wall >= budget.totalHours * 3600)
      return this.once(
        'hours',
        `stopping: the campaign has run ${(wall / 3600).toFixed(2)} h (totalHours ${budget.totalHours})`,
      );
    if (optimizer.sampler === 'grid' && finished.done + running >= gridSize(gridOf(search).grid) * seeds) return false;
    return true;
  }

  private readonly said = new Set<string>();
  private once(key: string, line: string): false {
    if (!this.said.has(key)) this.note(line);
    this.said.add(key);
    return false;
  }

  /** Runs one asked trial on a slot; returns its final state. */
  private async execute(asked: AskedTrial, slot: Slot): Promise<TrialRow['state']> {
    const { store } = this.o;
    const optuna = this.requireOptuna();
    const seed = typeof asked.attrs['seed'] === 'number' ? asked.attrs['seed'] : 0;
    const source = trialSource(asked.attrs);
    if (source === 'optimizer') {
      // A new configuration from the sampler: its other seeds run next.
      for (let k = 1; k < this.spec.seeds; k++)
        await optuna.enqueue(asked.params, { seed: k, source: 'seed', configKey: configKey(asked.params) });
    }
    const dir = trialDir(this.paths, asked.number);
    mkdirSync(dir, { recursive: true });
    const setup = trialSetup(this.spec, asked.params, seed);
    writeFileSync(
      join(dir, 'trial.json'),
      `${JSON.stringify({ number: asked.number, params: asked.params, seed, setup }, null, 2)}\n`,
    );
    let row = startedRow(this.campaignId, asked, { seed, source, worker: slot.label });
    const put = (next: Partial<TrialRow>): TrialRow => {
      row = { ...row, ...next };
      store.putTrial(row);
      return row;
    };
    put({});
    this.emit({ type: 'trial_started', trial: row });
    const ac = new AbortController();
    this.aborts.set(asked.number, ac);
    const onCampaignAbort = (): void => ac.abort(this.campaignAbort.signal.reason);
    this.campaignAbort.signal.addEventListener('abort', onCampaignAbort, { once: true });
    let out: TrialOutcome;
    try {
      out = await runTrial({
        spec: this.spec,
        task: this.task,
        number: asked.number,
        setup,
        slot,
        trialDir: dir,
        runName: `campaign-${this.campaignId}-t${asked.number}`,
        repoRoot: this.o.repoRoot,
        cacheDir: join(this.o.dataDir, 'cache', 'clients'),
        signal: ac.signal,
        report: (resource, value) => optuna.report(asked.number, resource, value),
        onStarted: (w) => put({ worker: w.label, runDir: w.runDir }),
        onPoint: (point, points) => this.emit({ type: 'trial_point', trial: put({ points: [...points] }), point }),
        onStep: (point) => {
          store.putStep(this.campaignId, asked.number, point);
          put({ steps: point.step });
          this.emit({ type: 'trial_step', number: asked.number, point });
        },
        log: (line) => this.note(line),
      });
    } finally {
      this.aborts.delete(asked.number);
      this.campaignAbort.signal.removeEventListener('abort', onCampaignAbort);
    }
    const state = trialState(out);
    await tellOptimizer(optuna, asked.number, state, out).catch((err: unknown) =>
      this.note(`trial ${asked.number}: telling the optimiser failed: ${message(err)}`),
    );
    const ended = put({
      state,
      value: out.value,
      points: out.points,
      note: out.note,
      steps: out.steps,
      endedAt: Date.now(),
      ...(out.runDir ? { runDir: out.runDir } : {}),
    });
    this.emit({ type: 'trial_ended', trial: ended });
    if (state !== 'interrupted') await this.afterTrial(ended);
    return state;
  }

  /** Trials still marked running in the store when the runner stops (they re-run on resume). */
  private markLeftoverInterrupted(): void {
    for (const t of this.o.store.trials(this.campaignId)) {
      if (t.state === 'running')
        this.o.store.putTrial({
          ...t,
          state: 'interrupted',
          endedAt: Date.now(),
          note: 'the campaign runner stopped while it ran; it runs again on resume',
        });
    }
  }

  private async afterTrial(trial: TrialRow): Promise<void> {
    await this.refreshImportance().catch((err: unknown) => this.note(`importance: ${message(err)}`));
    await writeReports(this.o.store, this.campaignId, this.paths).catch((err: unknown) =>
      this.note(`report: ${message(err)}`),
    );
    if (!this.stopRequested)
      await this.o.hooks?.afterTrial?.(this, trial).catch((err: unknown) => this.note(`agent: ${message(err)}`));
  }

  private async refreshImportance(): Promise<void> {
    if (!this.optuna || countStates(this.trials()).completed < 2) return;
    const r = await this.optuna.importance();
    this.o.store.setImportance(this.campaignId, r.importance);
  }

  private async takeCommands(): Promise<void> {
    for (const cmd of this.o.store.takeCommands(this.campaignId, Date.now())) {
      if (cmd.kind === 'stop') this.stop('stopped from the workbench');
      else if (cmd.kind === 'stop_trial') this.stopTrial(cmd.trial, cmd.reason || 'stopped from the workbench');
      await this.o.hooks?.onCommand?.(this, cmd).catch((err: unknown) => this.note(`command: ${message(err)}`));
    }
  }

  private async beat(): Promise<void> {
    const now = performance.now();
    this.o.store.heartbeat(this.campaignId, process.pid, Date.now(), (now - this.lastBeat) / 1000);
    this.lastBeat = now;
    await this.takeCommands();
    if (this.optuna) await this.o.hooks?.tick?.(this).catch((err: unknown) => this.note(`agent: ${message(err)}`));
  }

  private requireOptuna(): OptunaClient {
    if (!this.optuna) throw new Error('the campaign has not started');
    return this.optuna;
  }

  private note(line: string): void {
    this.emit({ type: 'note', line });
  }

  private emit(e: RunnerEvent): void {
    this.o.onEvent?.(e);
  }
}
