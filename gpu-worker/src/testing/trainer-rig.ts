// The Trainer on its own, for its tests: a fake engine (named as one), a real durable pool in a temporary
// folder, the real client registry for sync agreements, a fake host and a fake generation gate.
import { rmSync } from 'node:fs';
import type { GateHealth } from '../../../src/shared/rollout-health';
import { TrainingConfigSchema, type TrainingConfig } from '../../../src/shared/options/index';
import type { SwarmEvent } from '../../../src/shared/swarm-events';
import { conversation, say } from '../../../src/shared/timeline/testing/scenes';
import { ClientRegistry } from '../swarm/clients';
import { EventBus } from '../swarm/event-bus';
import { DurablePool } from '../swarm/pool';
import { emptyCounters, runFiles } from '../swarm/run-dir';
import { Trainer } from '../swarm/trainer';
import type { CommittedStep, TrainerHost } from '../swarm/trainer-ports';
import { FakeEngine } from './fake-engine';
import { tempDir } from './workers';

/** A fake host: counts what the trainer reports and says whether the worker runs. */
export class FakeHost implements TrainerHost {
  running = true;
  readonly counts = { trainedEpisodes: 0, droppedEpisodes: 0 };
  readonly states: string[] = [];
  canUpdate = (): boolean => this.running;
  stateChanged = (reason: string): void => void this.states.push(reason);
  count = (key: 'trainedEpisodes' | 'droppedEpisodes', n: number): void => void (this.counts[key] += n);
  snapshot = () => ({
    counters: { ...emptyCounters(), ...this.counts },
    eval: [],
  });
}

const ZERO_HEALTH: GateHealth = {
  genBusyFraction: 0,
  genIdleWaitFraction: 0,
  trainerBusyFraction: 0,
  syncMs: null,
  replicas: [],
};

/** A fake generation gate that records pauses and resumes (and reports zero run-health figures). */
export const fakeGate = () => {
  const log: string[] = [];
  return {
    log,
    pause: async () => void log.push('pause'),
    resume: () => void log.push('resume'),
    healthFigures: () => ZERO_HEALTH,
  };
};

const dirs: string[] = [];

/** Removes the rigs' folders (call from afterEach). */
export function cleanupRigs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

export async function trainerRig(config: Partial<TrainingConfig>, engine = new FakeEngine(), async = false) {
  const dir = tempDir('aj-trainer-');
  dirs.push(dir);
  const files = runFiles(dir);
  const pool = await DurablePool.open(files.pool, 0);
  const events: SwarmEvent[] = [];
  const bus = new EventBus(undefined);
  bus.onEvent((e) => events.push(e));
  const host = new FakeHost();
  const gate = fakeGate();
  const steps: CommittedStep[] = [];
  const sync = new ClientRegistry(60_000);
  let cfg = TrainingConfigSchema.parse(config);
  const trainer = new Trainer({
    config: () => cfg,
    async,
    pool,
    engine,
    generation: gate,
    sync,
    host,
    events: bus,
    files,
    saved: null,
    now: () => 1000,
    onStep: (s) => steps.push(s),
  });
  const until = async (what: string, ok: () => boolean): Promise<void> => {
    for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
    if (!ok()) throw new Error(`not reached: ${what}`);
  };
  return {
    dir,
    files,
    pool,
    events,
    host,
    gate,
    sync,
    trainer,
    engine,
    steps,
    until,
    setConfig: (c: Partial<TrainingConfig>) => (cfg = { ...cfg, ...c }),
  };
}

let n = 0;
/** A finished train episode of task `taskId` with `reward`, its one call sampled by `weightVersion`. */
export function episode(taskId: string, reward: number, weightVersion = 0) {
  const id = `ep_t${++n}`;
  return {
    episodeId: id,
    clientId: 'c',
    taskId,
    reward,
    endedAt: n,
    calls: conversation(id, [{ reply: say(`answer ${n}`), weightVersion }]),
  };
}
