// What the trainer (trainer.ts) works with, as it uses each part: the pool, the engine, the generation
// gate, the clients' sync agreements and the swarm that hosts it; and what it reports per committed step.
import type { TrainingConfig } from '../../../src/shared/options/index';
import type { GateHealth } from '../../../src/shared/rollout-health';
import type { Counters, EvalResult, StepServing } from '../../../src/shared/swarm-protocol';
import type { EngineCaller } from '../engine/engine-caller';
import type { BuiltSamples } from '../trainer/train-samples';
import type { TrainSettings } from '../trainer/train-step';
import type { EventSink } from './event-bus';
import type { PoolEntry, RemoveReason } from './pool';
import type { RunFiles, SavedState } from './run-dir';
import type { Teacher } from '../trainer/teacher';

/** The pool as the trainer uses it. */
export interface TrainingPool {
  readonly size: number;
  list(): PoolEntry[];
  get(episodeId: string): PoolEntry | undefined;
  remove(ids: readonly string[], reason: RemoveReason, step: number): Promise<PoolEntry[]>;
  rollback(step: number): PoolEntry[];
  compact(): Promise<void>;
}

/** The engine as the trainer uses it: train_step and save, and the weight version it reports. */
export interface TrainingEngine extends EngineCaller {
  readonly weightVersion: number;
}

/** Pauses generation around an update, so every call is sampled by exactly one weight version. */
export interface GenerationGate {
  pause(): Promise<void>;
  resume(): void;
  /** The engine's batching and prefix-cache figures since the previous call (admission layers that have them). */
  stepFigures?(): Promise<StepServing | undefined>;
  /** Busy fractions and weight-sync time since the previous step (run health). */
  healthFigures?(): GateHealth;
}

/** The clients' sync agreements (strategies C4/C5). */
export interface SyncAgreements {
  activeIds(): string[];
  agreedIds(): string[];
  clearAgreements(): void;
}

/** What the trainer asks of the swarm it serves. */
export interface TrainerHost {
  /** Whether the worker takes work now (running: not paused, stopping or recovering). */
  canUpdate(): boolean;
  /** The trainer's part of the worker state changed (an update began or ended). */
  stateChanged(reason: string): void;
  count(key: 'trainedEpisodes' | 'droppedEpisodes', n: number): void;
  /** Counters and eval results, for the checkpoint's state. */
  snapshot(): { counters: Counters; eval: EvalResult[] };
}

export interface TrainerDeps {
  config: () => Readonly<TrainingConfig>;
  /** --async: the staleness bound K (config.stalenessBound) holds at training time too (batching.ts trainingBound). */
  async?: boolean;
  pool: TrainingPool;
  engine: TrainingEngine;
  generation: GenerationGate;
  sync: SyncAgreements;
  host: TrainerHost;
  events: EventSink;
  files: RunFiles;
  saved: SavedState | null;
  now: () => number;
  /** On-policy distillation's teacher: its logprobs of the sampled tokens join the advantages. */
  teacher?: Teacher | null;
  /** Called with each committed step's episodes and what was trained from them. */
  onStep?: (step: CommittedStep) => void;
}

export interface CommittedStep {
  step: number;
  /** The weight version the step left (unchanged when nothing was trained). */
  weightVersion: number;
  /** The step's episodes, in the order of `built.advantages`. */
  episodes: readonly PoolEntry[];
  built: BuiltSamples;
  trained: boolean;
  /** The settings it trained with. */
  settings: TrainSettings;
}
