// The workbench's services behind the window, in plain Node (used by Electron main and by
// `agentjet ui`): the SQLite Store in `<dataDir>/workbench.sqlite`, run folders in
// `<dataDir>/runs/<runId>/`, and the backend implementing every WorkbenchApi method, with its
// events fanned out to listeners.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import type { WorkerConfigPatch } from '../shared/options/index';
import type { WorkbenchBackend, WorkbenchEvent } from '../shared/workbench-api';
import { Backend } from './services/backend';
import type { SshSettings } from './services/remote-attach';
import { openStore } from './store/store';

export interface WorkbenchOptions {
  dataDir: string;
  /** The bundled examples (default `<repo>/resources/examples`). */
  examplesDir?: string;
  log?: (line: string) => void;
  /** Worker settings of every local worker (tests: `{threads: 1, seed: 1}`). */
  workerConfig?: WorkerConfigPatch;
  /**
   * Held-out eval episodes per eval of a local run (default 16; 0 turns eval off) and the steps between evals (default
   * 5).
   */
  evalEpisodes?: number;
  evalEvery?: number;
  /** Iterated labelling in local runs: a round of `perRound` labels every `every` steps (live-relabel.ts). */
  relabel?: { every: number; perRound: number };
  /** Who the inspector's labels are by (default $AGENTJET_LABEL_AUTHOR, else the OS user). */
  labelAuthor?: string;
  /** How remote workers are reached over SSH (tests: a temporary ssh config). */
  ssh?: SshSettings;
}

export interface Workbench {
  backend: WorkbenchBackend;
  onEvent(listener: (e: WorkbenchEvent) => void): () => void;
  dispose(): Promise<void>;
}

/** The repository (or installed package) root: where bin/, resources/ and node_modules/ are. */
export const REPO_ROOT = resolve(import.meta.dirname, '../..');

function packageVersion(root: string): string {
  try {
    return z.object({ version: z.string() }).parse(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')))
      .version;
  } catch {
    return '0.0.0';
  }
}

/**
 * The data folder, private: created 0700, its `runs/` folder (tokens, secrets, timelines) 0700
 * even when it exists, and `workbench.sqlite` (with its -wal/-shm, which SQLite creates with the
 * database's mode) 0600 — never world-readable.
 */
export function preparePrivateDataDir(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const runs = join(dataDir, 'runs');
  mkdirSync(runs, { recursive: true, mode: 0o700 });
  chmodSync(runs, 0o700);
  const db = join(dataDir, 'workbench.sqlite');
  closeSync(openSync(db, 'a', 0o600));
  for (const f of [db, `${db}-wal`, `${db}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
  return db;
}

export async function createWorkbench(opts: WorkbenchOptions): Promise<Workbench> {
  const dataDir = resolve(opts.dataDir);
  const log = opts.log ?? ((line: string) => console.error(line));
  const store = openStore(preparePrivateDataDir(dataDir));
  const listeners = new Set<(e: WorkbenchEvent) => void>();
  const emit = (e: WorkbenchEvent): void => {
    for (const l of listeners) {
      try {
        l(e);
      } catch (err) {
        log(`an event listener failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  };
  const backend = new Backend({
    store,
    dataDir,
    repoRoot: REPO_ROOT,
    examplesDir: opts.examplesDir ? resolve(opts.examplesDir) : join(REPO_ROOT, 'resources', 'examples'),
    version: packageVersion(REPO_ROOT),
    emit,
    log,
    ...(opts.workerConfig ? { workerConfig: opts.workerConfig } : {}),
    ...(opts.evalEpisodes !== undefined ? { evalEpisodes: opts.evalEpisodes } : {}),
    ...(opts.evalEvery !== undefined ? { evalEvery: opts.evalEvery } : {}),
    ...(opts.relabel ? { relabel: opts.relabel } : {}),
    ...(opts.labelAuthor !== undefined ? { labelAuthor: opts.labelAuthor } : {}),
    ...(opts.ssh ? { ssh: opts.ssh } : {}),
  });
  let disposed: Promise<void> | null = null;
  return {
    backend,
    onEvent: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose: () => {
      disposed ??= (async () => {
        await backend.dispose();
        listeners.clear();
        store.close();
      })();
      return disposed;
    },
  };
}
