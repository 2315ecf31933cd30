// Test support for the store's tests: a store in a fresh temp folder (real SQLite on disk), and
// valid contract values to write.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientRow, StepPoint } from '../../shared/workbench-api';
import { openStore, type StoreOptions } from './store';
import type { EpisodeInput, NewRun, Store } from './types';

export interface TempStore {
  store: Store;
  dir: string;
  path: string;
  /** Closes the store (if open) and removes the folder. */
  cleanup(): void;
}

export function tempStore(options?: StoreOptions): TempStore {
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-store-'));
  const path = join(dir, 'workbench.db');
  const store = openStore(path, options);
  return {
    store,
    dir,
    path,
    cleanup() {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function newRun(runId: string, over: Partial<NewRun> = {}): NewRun {
  return {
    runId,
    name: `run ${runId}`,
    mode: 'local',
    workerUrl: 'http://127.0.0.1:8700',
    model: 'builtin',
    example: 'calculator-agent',
    config: { batch: 8, strategy: 'C1' },
    createdAt: 1000,
    ...over,
  };
}

export function stepPoint(step: number, over: Partial<StepPoint> = {}): StepPoint {
  return {
    step,
    weightVersion: step,
    time: 1000 + step,
    episodes: 8,
    rewardMean: step / 10,
    rewardMin: 0,
    rewardMax: 1,
    successRate: 0.5,
    samples: 8,
    tokensBefore: 800,
    tokensAfter: 400,
    compressionRatio: 2,
    samplesPerEpisode: 1,
    rolloutS: 1.5,
    updateS: 0.5,
    loss: 0.1,
    entropy: null,
    approxKl: null,
    breakCounts: { token_drift: 1 },
    ...over,
  };
}

export function clientRow(clientId: string, over: Partial<ClientRow> = {}): ClientRow {
  return {
    clientId,
    local: true,
    status: 'running',
    pid: 123,
    codeVersion: 'v1',
    claimed: 3,
    ended: 2,
    aborted: 0,
    expired: 0,
    openEpisodes: 1,
    restarts: 0,
    lastActivityAt: 1500,
    ...over,
  };
}

export function episodeInput(episodeId: string, over: Partial<EpisodeInput> = {}): EpisodeInput {
  return {
    episodeId,
    kind: 'train',
    status: 'ended',
    taskId: 'task-1',
    clientId: 'c1',
    codeVersion: 'v1',
    role: null,
    reward: 1,
    success: true,
    calls: 2,
    createdAt: 1000,
    finishedAt: 1001,
    ...over,
  };
}
