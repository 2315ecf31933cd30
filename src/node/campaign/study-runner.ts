// Runs a study (docs/studies.md): every arm × seed of its plan is one trial through the campaign
// trial machinery (a fresh local worker, the same budget, evaluation before and after training;
// never pruned), recorded in the store as a campaign (params {arm}) so the Campaigns panel and
// `campaign status` show it, and the study report (report.md / report.html: per-arm mean ± SE,
// comparisons with verdicts, power) rewritten after every trial. Resuming is starting again:
// trials completed before are kept, the rest (failed, interrupted) run again.
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { trialSetup } from '../../shared/campaign/spec';
import {
  analyseStudy,
  studyHtml,
  studyMarkdown,
  studyValue,
  type StudyAnalysis,
} from '../../shared/campaign/study-report';
import { armCampaign, studyCampaign, studyPlan, type StudySpec } from '../../shared/campaign/study-spec';
import type { TrialRow } from '../../shared/campaign/trials';
import { campaignPaths, publicSpec, takeLock, trialDir, type CampaignPaths } from './campaign-files';
import type { CampaignStore } from './campaign-store';
import { LocalSlot, localParallel, type Slot } from './slots';
import { resolveTask } from './task-ref';
import { runTrial, type TrialEnd, type TrialEvent } from './trial-run';

export type StudyEvent = TrialEvent;

export interface StudyRunnerOptions {
  spec: StudySpec;
  /** The study file's folder (relative task folders). */
  baseDir: string;
  dataDir: string;
  store: CampaignStore;
  repoRoot: string;
  examplesDir: string;
  onEvent?: (e: StudyEvent) => void;
  heartbeatMs?: number;
}

export interface StudyResult {
  campaignId: string;
  state: 'done' | 'stopped';
  trials: TrialRow[];
  analysis: StudyAnalysis;
  paths: CampaignPaths;
  wallS: number;
}

/** Tries of one arm × seed before its failure stands. */
const MAX_ATTEMPTS = 2;

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/** Throws when a study asks for what trials cannot do (remote workers). */
export function checkRunnable(spec: StudySpec): void {
  if (spec.workers.remote.length > 0) throw new Error('studies run on local workers only (workers.remote)');
}

export class StudyRunner {
  readonly paths: CampaignPaths;
  private readonly abort = new AbortController();
  private stopReason: string | null = null;
  private readonly t0 = performance.now();

  constructor(private readonly o: StudyRunnerOptions) {
    checkRunnable(o.spec);
    this.paths = campaignPaths(o.dataDir, o.spec.name);
  }

  /** Stops the study: the running trial ends as interrupted and runs again on resume. */
  stop(reason = 'stopped'): void {
    this.stopReason ??= reason;
    this.abort.abort({ state: 'interrupted', note: reason } satisfies TrialEnd);
  }

  async run(): Promise<StudyResult> {
    const { spec, store } = this.o;
    const id = spec.name;
    const release = takeLock(this.paths);
    const heartbeat = setInterval(() => this.beat(), this.o.heartbeatMs ?? 2000);
    heartbeat.unref();
    try {
      this.prepare();
      const slot = this.slot();
      const done = new Set(
        store
          .trials(id)
          .filter((t) => t.state === 'complete')
          .map((t) => t.number),
      );
      for (const p of studyPlan(spec)) {
        if (this.stopReason) break;
        if (done.has(p.number)) continue;
        // A trial that fails (a worker that did not start on a loaded machine) is tried once more, so an arm is not
        // left a seed short by the infrastructure; a second failure stands, with its cause, in the report.
        for (let attempt = 1; attempt <= MAX_ATTEMPTS && !this.stopReason; attempt++) {
          const state = await this.trial(p, slot, attempt);
          this.writeReport();
          if (state !== 'failed') break;
          if (attempt < MAX_ATTEMPTS) this.emit({ type: 'note', line: `trial ${p.number} failed; trying it again` });
        }
      }
      const state = this.stopReason ? 'stopped' : 'done';
      store.setState(id, state, this.stopReason, Date.now());
      return {
        campaignId: id,
        state,
        trials: store.trials(id),
        analysis: this.writeReport(),
        paths: this.paths,
        wallS: (performance.now() - this.t0) / 1000,
      };
    } catch (err) {
      store.setState(id, 'failed', message(err), Date.now());
      throw err;
    } finally {
      clearInterval(heartbeat);
      for (const t of store.trials(id))
        if (t.state === 'running')
          store.putTrial({ ...t, state: 'interrupted', endedAt: Date.now(), note: 'the study stopped; it runs again' });
      store.heartbeat(id, null, Date.now());
      release();
    }
  }

  private prepare(): void {
    const { spec, store } = this.o;
    mkdirSync(this.paths.trials, { recursive: true });
    writeFileSync(join(this.paths.dir, 'study.json'), `${JSON.stringify(spec, null, 2)}\n`);
    const campaign = studyCampaign(spec);
    writeFileSync(this.paths.spec, `${JSON.stringify(publicSpec(campaign), null, 2)}\n`);
    store.upsertCampaign({
      campaignId: spec.name,
      name: spec.name,
      question: spec.question,
      spec: publicSpec(campaign),
      dir: this.paths.dir,
      createdAt: Date.now(),
    });
    store.setState(spec.name, 'running', null, Date.now());
    store.heartbeat(spec.name, process.pid, Date.now());
  }

  /** One local worker at a time by default: arms compared at equal wall time must not share the CPU unevenly. */
  private slot(): Slot {
    const { spec } = this.o;
    const parallel = localParallel(spec.workers.local);
    const threads = spec.base.worker.threads ?? Math.max(1, Math.floor(cpus().length / Math.max(1, parallel)) - 1);
    return new LocalSlot('local-1', {
      bin: join(this.o.repoRoot, 'bin', 'agentjet.mjs'),
      repoRoot: this.o.repoRoot,
      threads,
    });
  }

  private async trial(
    p: { number: number; arm: string; seedIndex: number },
    slot: Slot,
    attempt: number,
  ): Promise<TrialRow['state']> {
    const { spec, store } = this.o;
    const campaign = armCampaign(spec, p.arm);
    const arm = spec.arms[p.arm]!;
    const setup = trialSetup(campaign, {}, p.seedIndex);
    const dir = trialDir(this.paths, p.number);
    // Every attempt starts a fresh worker folder (a trial interrupted by a stopped study runs again from
    // the start); the earlier attempt's folder is kept beside it for its logs.
    if (existsSync(dir)) renameSync(dir, `${dir}.${attempt > 1 ? `attempt-${attempt - 1}` : 'earlier'}-${Date.now()}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'trial.json'), `${JSON.stringify({ number: p.number, arm: p.arm, setup }, null, 2)}\n`);
    let row: TrialRow = {
      campaignId: spec.name,
      number: p.number,
      state: 'running',
      params: { arm: p.arm },
      seed: setup.seed,
      source: 'optimizer',
      rationale: null,
      value: null,
      points: [],
      note: null,
      worker: slot.label,
      runDir: null,
      steps: 0,
      startedAt: Date.now(),
      endedAt: null,
    };
    const put = (next: Partial<TrialRow>): TrialRow => {
      row = { ...row, ...next };
      store.putTrial(row);
      return row;
    };
    this.emit({ type: 'trial_started', trial: put({}) });
    const examples = this.o.examplesDir;
    const out = await runTrial({
      spec: campaign,
      task: resolveTask(campaign.base.task, this.o.baseDir, examples),
      ...(arm.evalTask ? { evalTask: resolveTask(arm.evalTask, this.o.baseDir, examples) } : {}),
      number: p.number,
      setup,
      slot,
      trialDir: dir,
      runName: `study-${spec.name}-t${p.number}`,
      repoRoot: this.o.repoRoot,
      cacheDir: join(this.o.dataDir, 'cache', 'clients'),
      signal: this.abort.signal,
      report: () => Promise.resolve(false),
      onStarted: (w) => put({ worker: w.label, runDir: w.runDir }),
      onPoint: (point, points) => this.emit({ type: 'trial_point', trial: put({ points: [...points] }), point }),
      onStep: (point) => {
        store.putStep(spec.name, p.number, point);
        put({ steps: point.step });
        this.emit({ type: 'trial_step', number: p.number, point });
      },
      log: (line) => this.emit({ type: 'note', line }),
    });
    const state: TrialRow['state'] = out.state === 'stopped' ? 'failed' : out.state;
    // The value the panel's configuration table shows (mean ± SE by arm): the study metric itself.
    const value = state === 'complete' ? studyValue(spec, { ...row, points: out.points }) : null;
    const ended = put({
      state,
      value,
      points: out.points,
      note: out.note,
      steps: out.steps,
      endedAt: Date.now(),
      ...(out.runDir ? { runDir: out.runDir } : {}),
    });
    this.emit({ type: 'trial_ended', trial: ended });
    return state;
  }

  /** The study report from the store: report.md and report.html in the campaign folder. */
  writeReport(): StudyAnalysis {
    const { spec, store } = this.o;
    const analysis = analyseStudy(spec, store.trials(spec.name));
    const md = studyMarkdown(spec, analysis, Date.now());
    writeAtomic(this.paths.reportMd, md);
    writeAtomic(this.paths.reportHtml, studyHtml(md, `Study ${spec.name}`));
    return analysis;
  }

  private beat(): void {
    const { store, spec } = this.o;
    try {
      store.heartbeat(spec.name, process.pid, Date.now(), (this.o.heartbeatMs ?? 2000) / 1000);
      for (const cmd of store.takeCommands(spec.name, Date.now()))
        if (cmd.kind === 'stop') this.stop('stopped from the workbench');
    } catch (err) {
      this.emit({ type: 'note', line: `heartbeat: ${message(err)}` });
    }
  }

  private emit(e: StudyEvent): void {
    this.o.onEvent?.(e);
  }
}
