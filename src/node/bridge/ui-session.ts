// One `agentjet ui` session: the workbench services behind the WebSocket bridge, the browser
// build they serve, an optional immediate local connect, and one dispose for all of it.
import { mkdirSync } from 'node:fs';
import type { WorkerConfigPatch } from '../../shared/options/index';
import {
  LocalConnectSchema,
  type Session,
  type WorkbenchBackend,
  type WorkbenchEvent,
} from '../../shared/workbench-api';
import { withLocalDefaults, withTransport, type LocalDefaults } from './backend-overrides';
import { startBridgeServer, type BridgeServer } from './bridge-server';
import { ensureWebBuild } from './web-build';

/** What `createWorkbench` (src/node/workbench.ts) returns, as the bridge uses it. */
export interface WorkbenchHandle {
  backend: WorkbenchBackend;
  onEvent(listener: (e: WorkbenchEvent) => void): () => void;
  dispose(): Promise<void>;
}

/** Options of `createWorkbench` that `agentjet ui` passes through. */
export interface WorkbenchTuning {
  /** Worker settings of local workers (e.g. `{threads: 2}`). */
  workerConfig?: WorkerConfigPatch;
  /** Held-out eval episodes per eval of a local run (0: off) and the steps between evals. */
  evalEpisodes?: number;
  evalEvery?: number;
  /** Iterated labelling in local runs: a round of `perRound` labels every `every` steps (live-relabel.ts). */
  relabel?: { every: number; perRound: number };
}

export type CreateWorkbench = (
  opts: { dataDir: string; log?: (line: string) => void } & WorkbenchTuning,
) => Promise<WorkbenchHandle>;

export interface UiSessionOptions {
  host: string;
  port: number;
  dataDir: string;
  /** Connect a local worker right away with these settings. */
  connectLocal: { model: string; example: string; clients: number } | null;
  /** Training settings for local connects that leave them unset. */
  localDefaults: LocalDefaults;
  createWorkbench: CreateWorkbench;
  tuning?: WorkbenchTuning;
  /** The built renderer (default: `<repoRoot>/out/web`, built when missing or stale). */
  staticDir?: string;
  repoRoot: string;
  out: (line: string) => void;
}

export interface UiSession {
  bridge: BridgeServer;
  backend: WorkbenchBackend;
  /** Settles when the immediate local connect is done: its session, or null (none asked, or it failed — printed). */
  connected: Promise<Session | null>;
  dispose(): Promise<void>;
}

export async function startUiSession(o: UiSessionOptions): Promise<UiSession> {
  const { out } = o;
  const staticDir = o.staticDir ?? (await ensureWebBuild(o.repoRoot, (l) => out(`ui: ${l}`)));
  mkdirSync(o.dataDir, { recursive: true, mode: 0o700 });
  const workbench = await o.createWorkbench({ ...o.tuning, dataDir: o.dataDir, log: out });
  const backend = withTransport(withLocalDefaults(workbench.backend, o.localDefaults), 'websocket');
  let bridge: BridgeServer;
  try {
    bridge = await startBridgeServer({
      backend,
      onEvent: (l) => workbench.onEvent(l),
      staticDir,
      host: o.host,
      port: o.port,
      log: out,
    });
  } catch (err) {
    await workbench.dispose();
    if (err instanceof Error && 'code' in err && err.code === 'EADDRINUSE')
      throw new Error(`port ${o.port} on ${o.host} is in use: pass --port <other> (or --port 0 for a free one)`);
    throw err;
  }
  out(`agentjet ui: data ${o.dataDir}`);
  out(`agentjet ui: open ${bridge.pageUrl}`);
  if (!['127.0.0.1', 'localhost', '::1'].includes(o.host))
    out(`agentjet ui: bound to ${o.host}: anyone who has the URL (with its token) can control this workbench`);

  const local = o.connectLocal;
  const connected: Promise<Session | null> = local
    ? (async () => {
        out(`agentjet ui: connecting a local worker (${local.model}, ${local.example}, ${local.clients} clients)…`);
        try {
          const session = await backend.connectLocal(LocalConnectSchema.parse(local));
          out(`agentjet ui: connected · run ${session.runId} · worker ${session.workerUrl} · ${session.state}`);
          return session;
        } catch (err) {
          out(
            `agentjet ui: the local connect failed: ${err instanceof Error ? err.message : String(err)} (connect ` +
              'from the UI instead)',
          );
          return null;
        }
      })()
    : Promise.resolve(null);

  let disposing: Promise<void> | null = null;
  return {
    bridge,
    backend,
    connected,
    dispose: () => {
      disposing ??= (async () => {
        await bridge.close();
        await connected;
        await workbench.dispose();
      })();
      return disposing;
    },
  };
}
