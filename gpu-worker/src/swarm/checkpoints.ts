// Checkpoints of a run: the engine saves weights, optimizer and RNG under
// `checkpoints/step-N`, `state.json` records the step, counters, eval results and last step
// metrics beside it, the pool journal is compacted, and all but the newest checkpoints are pruned.
import { readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Counters, EvalResult, StepMetrics } from '../../../src/shared/swarm-protocol';
import type { EngineCaller } from '../engine/engine-caller';
import { writeState, type RunFiles, type SavedState } from './run-dir';

export interface CheckpointInfo {
  step: number;
  weightVersion: number;
  path: string;
  at: number;
}

/** What a checkpoint records besides the engine's folder. */
export interface RunSnapshot {
  step: number;
  lastStep: StepMetrics | null;
  counters: Counters;
  eval: EvalResult[];
}

export interface CheckpointDeps {
  engine: EngineCaller & { readonly weightVersion: number };
  pool: { compact(): Promise<void> };
  files: RunFiles;
  now: () => number;
}

const KEEP_CHECKPOINTS = 2;

export class Checkpoints {
  private lastInfo: CheckpointInfo | null = null;

  constructor(
    private readonly deps: CheckpointDeps,
    saved: SavedState | null,
  ) {
    if (saved?.checkpoint)
      this.lastInfo = {
        step: saved.step,
        weightVersion: saved.weightVersion,
        path: join(deps.files.dir, saved.checkpoint),
        at: saved.savedAt,
      };
  }

  /** The newest checkpoint (the one an engine restart restores), or null before the first. */
  get last(): CheckpointInfo | null {
    return this.lastInfo;
  }

  /** Saves the engine (unless the last checkpoint already holds these weights) and the run's state. */
  async write(snapshot: RunSnapshot): Promise<CheckpointInfo> {
    const { engine, files } = this.deps;
    const path = join(files.checkpoints, `step-${String(snapshot.step).padStart(6, '0')}`);
    const last = this.lastInfo;
    const same =
      last !== null && last.step === snapshot.step && last.weightVersion === engine.weightVersion && last.path === path;
    if (!same) await engine.call('save', { path });
    const info: CheckpointInfo = {
      step: snapshot.step,
      weightVersion: engine.weightVersion,
      path,
      at: this.deps.now(),
    };
    writeState(files, {
      version: 1,
      step: snapshot.step,
      weightVersion: info.weightVersion,
      checkpoint: relative(files.dir, path),
      counters: snapshot.counters,
      eval: snapshot.eval,
      lastStep: snapshot.lastStep,
      savedAt: info.at,
    });
    this.lastInfo = info;
    await this.deps.pool.compact();
    this.prune(path);
    return info;
  }

  private prune(keep: string): void {
    const dir = this.deps.files.checkpoints;
    let names: string[];
    try {
      names = readdirSync(dir)
        .filter((n) => /^step-\d+$/.test(n))
        .sort();
    } catch {
      return;
    }
    const old = names.filter((n) => join(dir, n) !== keep).slice(0, Math.max(0, names.length - KEEP_CHECKPOINTS));
    for (const n of old) rmSync(join(dir, n), { recursive: true, force: true });
  }
}
