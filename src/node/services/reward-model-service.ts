// RewardModelService: a run's reward models — trains one on the run's labels (the labels dataset written
// next to the versioned folder `<data dir>/runs/<run>/reward-models/v<N>`, the engine's reward-model
// process spawned for it, progress pushed as `reward_model` events), records it in the store, deploys it
// into the live run's reward code (its `reward-model-ref.ts` pointer, saved and hot-swapped like any edit:
// the new code version names the model by its hash), and serves the score-vs-verifiable-reward chart.
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { BUILTIN_MODEL_DIR } from '../../../gpu-worker/src/resources';
import {
  REWARD_MODEL_POINTER_FILE,
  rewardModelPointerSource,
  RM_SCORE_METRIC,
  VERIFIABLE_REWARD_METRIC,
} from '../../shared/reward-model';
import type { RewardModelRow, RmTrainingStatus } from '../../shared/rewards-api';
import {
  WorkbenchError,
  type WorkbenchEvent,
  type WorkbenchParsedParams as P,
  type WorkbenchResult as R,
} from '../../shared/workbench-api';
import { runPath } from '../run-paths';
import type { Store } from '../store/types';
import type { ClientService } from './client-service';
import { buildDataset, conversationFromTimelines } from './labels-dataset';
import { trainRewardModel, type RmTrainEvent, type RunningProcess, type RmTrained } from './reward-model-trainer';

/** The module reward code imports to know its reward model (see resources/examples/calculator-rm). */
export const POINTER_FILE = REWARD_MODEL_POINTER_FILE;

export interface RewardModelServiceOptions {
  store: Store;
  dataDir: string;
  emit: (e: WorkbenchEvent) => void;
  log: (line: string) => void;
  /** The live run and its clients (deploy needs them). */
  live: () => { runId: string; clients: ClientService } | null;
  flush?: () => void;
  /** torch threads of the training process (default 2). */
  threads?: number;
}

export class RewardModelService {
  private training: { runId: string; status: RmTrainingStatus; proc: RunningProcess<RmTrained> } | null = null;
  private lastStatus = new Map<string, RmTrainingStatus>();

  constructor(private readonly o: RewardModelServiceOptions) {}

  private get store(): Store {
    this.o.flush?.();
    return this.o.store;
  }

  async rewardModels(p: P<'rewardModels'>): Promise<R<'rewardModels'>> {
    return {
      models: this.store.listRewardModels(p.runId),
      training: this.training?.runId === p.runId ? this.training.status : (this.lastStatus.get(p.runId) ?? null),
    };
  }

  async trainRewardModel(p: P<'trainRewardModel'>): Promise<R<'trainRewardModel'>> {
    if (this.training)
      throw new WorkbenchError(
        'busy',
        `reward model v${this.training.status.version} of run ${this.training.runId} is still training`,
      );
    const store = this.store;
    const run = store.getRun(p.runId);
    const dir = join(runPath(join(this.o.dataDir, 'runs'), p.runId), 'reward-models');
    const ds = buildDataset(
      store.listLabels(p.runId),
      (id) => conversationFromTimelines(store.episodeTimelines(p.runId, id)),
      (id) => store.getEpisode(p.runId, id).taskId ?? id,
    );
    if (ds.pointLabels + ds.pairLabels === 0) {
      const missing = ds.missing.length ? ` (${ds.missing.length} labelled episodes have no stored calls)` : '';
      throw new WorkbenchError(
        'no_labels',
        `run ${p.runId} has no usable labels yet${missing}: label episodes in the inspector or import labels first`,
      );
    }
    const version = Math.max(0, ...store.listRewardModels(p.runId).map((m) => m.version)) + 1;
    await mkdir(dir, { recursive: true });
    const dataset = join(dir, `v${version}.dataset.jsonl`);
    await writeFile(dataset, ds.lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const status: RmTrainingStatus = {
      version,
      state: 'training',
      fraction: 0,
      detail: `${ds.pointLabels} good/bad + ${ds.pairLabels} preference labels on ${ds.conversations} episodes`,
      startedAt: Date.now(),
    };
    const base = run.model === 'builtin' ? BUILTIN_MODEL_DIR : run.model;
    const proc = trainRewardModel(
      {
        dataset,
        base,
        out: join(dir, `v${version}`),
        version,
        loss: p.loss,
        epochs: p.epochs,
        lr: p.lr,
        heldout: p.heldout,
        maxMinutes: p.maxMinutes,
        threads: this.o.threads ?? 2,
        ...(p.maxLength !== undefined ? { maxLength: p.maxLength } : {}),
        ...(p.seed !== undefined ? { seed: p.seed } : {}),
      },
      (e) => {
        const patch = progressOf(e, status.detail);
        if (patch) this.update(p.runId, patch);
      },
    );
    this.training = { runId: p.runId, status, proc };
    this.emitStatus(p.runId, null);
    this.o.log(`reward model v${version} (run ${p.runId}): training on ${status.detail}`);
    void proc.done.then(
      (t) => this.trained(p.runId, version, t),
      (err: unknown) =>
        this.finish(
          p.runId,
          { state: 'failed', fraction: null, detail: err instanceof Error ? err.message : String(err) },
          null,
        ),
    );
    return { version };
  }

  async deployRewardModel(p: P<'deployRewardModel'>): Promise<R<'deployRewardModel'>> {
    const live = this.o.live();
    if (!live || live.runId !== p.runId)
      throw new WorkbenchError(
        'not_live',
        `run ${p.runId} is not the live run: deploy into the run whose clients are running`,
      );
    const rm = this.store.getRewardModel(p.runId, p.version);
    const code = await live.clients.codeFiles();
    const pointer = code.files.find((f) => f.editable && basename(f.path) === POINTER_FILE);
    if (!pointer)
      throw new WorkbenchError(
        'no_pointer',
        `the run's client code imports no ${POINTER_FILE} (the file reward code reads its reward model from; see ` +
          'the calculator-rm example)',
      );
    const saved = await live.clients.saveCode([
      {
        path: pointer.path,
        content: rewardModelPointerSource({ folder: rm.folder, sha256: rm.sha256, version: rm.version }),
      },
    ]);
    if (!saved.ok)
      throw new WorkbenchError(
        'compile_failed',
        'the client code did not compile with the new pointer: ' +
          `${saved.errors.map((e) => `${e.path}:${e.line}: ${e.message}`).join('; ')}`,
      );
    this.o.store.setRewardModelDeployed(p.runId, p.version, Date.now());
    this.o.log(`reward model v${p.version} deployed: code version ${saved.codeVersion}`);
    return { codeVersion: saved.codeVersion, path: pointer.path };
  }

  async rewardComparison(p: P<'rewardComparison'>): Promise<R<'rewardComparison'>> {
    const points = this.store.metricPairs(p.runId, RM_SCORE_METRIC, VERIFIABLE_REWARD_METRIC, p.limit).map((m) => ({
      episodeId: m.episodeId,
      createdAt: m.createdAt,
      codeVersion: m.codeVersion,
      rmScore: m.x,
      verifiable: m.y,
    }));
    return { points };
  }

  /** Stops a training in progress and waits for its process to end. */
  async dispose(): Promise<void> {
    const t = this.training;
    if (!t) return;
    t.proc.cancel();
    await t.proc.done.catch(() => undefined);
  }

  /** A finished training: the model is stored and the status says its held-out accuracy. */
  private trained(runId: string, version: number, t: RmTrained): void {
    this.o.store.putRewardModel(runId, {
      version,
      folder: t.folder,
      sha256: t.sha256,
      createdAt: Date.now(),
      manifest: t.manifest,
    });
    const row = this.o.store.listRewardModels(runId).find((m) => m.version === version) ?? null;
    const detail = `held-out accuracy ${fmtAcc(t.manifest.metrics.heldoutAccuracy)} in ${t.seconds.toFixed(0)} s`;
    this.finish(runId, { state: 'done', fraction: 1, detail }, row);
  }

  private update(runId: string, patch: Partial<RmTrainingStatus>): void {
    if (!this.training || this.training.runId !== runId) return;
    this.training.status = { ...this.training.status, ...patch };
    this.emitStatus(runId, null);
  }

  private finish(runId: string, patch: Partial<RmTrainingStatus>, model: RewardModelRow | null): void {
    if (!this.training) return;
    const status = { ...this.training.status, ...patch };
    this.training = null;
    this.lastStatus.set(runId, status);
    this.o.log(`reward model v${status.version} (run ${runId}): ${status.state}: ${status.detail}`);
    this.o.emit({ type: 'reward_model', runId, status, model });
  }

  private emitStatus(runId: string, model: RewardModelRow | null): void {
    if (this.training) this.o.emit({ type: 'reward_model', runId, status: this.training.status, model });
  }
}

/** The training status a progress event of the training process sets (null: none). */
function progressOf(e: RmTrainEvent, detail: string): Partial<RmTrainingStatus> | null {
  switch (e.event) {
    case 'start':
      return {
        detail:
          `${detail}; ${e.trainPairs} train / ${e.heldoutPairs} held-out pairs,` +
          ` ${e.trainPoints} / ${e.heldoutPoints} points, ${e.steps} steps`,
      };
    case 'probe':
      return {
        fraction: 0.05,
        detail: `score head fitted on ${e.conversations} episodes' features (loss ${e.loss.toFixed(4)}); fine-tuning`,
      };
    case 'step':
      return {
        fraction: Math.min(0.95, (0.9 * e.step) / e.steps),
        detail: `step ${e.step}/${e.steps} · loss ${e.loss.toFixed(4)}`,
      };
    case 'exported':
      return {
        fraction: 0.97,
        detail: `exported to ONNX (max |ONNX − PyTorch| ${e.onnxMaxAbsDiff.toExponential(1)})`,
      };
    default:
      return null;
  }
}

const fmtAcc = (a: number | null): string => (a === null ? 'n/a' : `${(100 * a).toFixed(1)}%`);
