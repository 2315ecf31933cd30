// ClientService: the run's swarm clients. Wraps the ClientRunner for the run's code (a bundled
// example through an overlay, or a user folder), serves the editor (files, save → compile →
// hot-swap, compile errors as values), records every deployed code version with a chart marker,
// merges the runner's clients with the worker's counters into the clients panel, and forwards
// client logs. The worker's clients follow its events stream (ClientTracker), with a status
// snapshot at start and every `reconcileMs` (30 s) — never a listing polled every second.
import { resolve } from 'node:path';
import type { SwarmEvent } from '../../shared/swarm-events';
import type { ClientRow, CodeFile, CodeFiles, CompileError, LogLine, SaveResult } from '../../shared/workbench-api';
import { clientSource, WorkbenchError } from '../../shared/workbench-api';
import { ClientRunner, type CompileMessage, type SourceFile } from '../runner/index';
import { mergeClientRows } from './client-rows';
import { ClientTracker } from './client-tracker';
import type { CodeWorkspace } from './code-workspace';
import type { RunContext } from './run-context';
import type { WorkerClient } from '../worker-client';

export interface ClientServiceOptions {
  ctx: RunContext;
  http: WorkerClient;
  /** The run's code; null when the run has no client code (a remote worker watched only). */
  workspace: CodeWorkspace | null;
  /** Runs local clients when given (the join token is needed to claim episodes). */
  runner: {
    serverUrl: string;
    /** The https worker's certificate for the clients to trust (AGENTJET_CA_FILE, NODE_EXTRA_CA_CERTS). */
    caFile?: string | null;
    joinToken: string;
    count: number;
    groupSize: number;
    cacheDir: string;
    nodePaths: string[];
  } | null;
  /** Training steps completed now (for code markers). */
  currentStep: () => number;
  /** Subscribes to the worker's events (the clients list follows them). */
  events: (listener: (e: SwarmEvent) => void) => () => void;
  /** How often a status snapshot corrects the followed list (default 30 s). */
  reconcileMs?: number;
}

/** Panel updates from events are coalesced to at most one per this many ms. */
const REFRESH_MS = 200;

export class ClientService {
  private readonly runner: ClientRunner | null;
  private rows: ClientRow[] = [];
  private readonly tracker = new ClientTracker();
  private readonly timer: NodeJS.Timeout;
  private readonly offEvents: () => void;
  private refreshTimer: NodeJS.Timeout | null = null;
  private polling = false;
  private disposed = false;
  private codeVersion: string | null = null;
  /** The first compile failed: the session shows it until a save compiles. */
  private startFailed = false;

  constructor(private readonly o: ClientServiceOptions) {
    const r = o.runner;
    this.runner =
      r && o.workspace
        ? new ClientRunner({
            name: 'wb',
            serverUrl: r.serverUrl,
            joinToken: r.joinToken,
            count: r.count,
            env: {
              AGENTJET_GROUP_SIZE: String(r.groupSize),
              ...(r.caFile ? { AGENTJET_CA_FILE: r.caFile, NODE_EXTRA_CA_CERTS: r.caFile } : {}),
            },
            cacheDir: r.cacheDir,
            nodePaths: r.nodePaths,
            cwd: o.workspace.spec.root,
          })
        : null;
    if (this.runner) {
      this.runner.on('client:log', (l) =>
        this.log({
          t: l.t,
          source: clientSource(l.clientId),
          stream: l.stream === 'system' ? 'event' : l.stream,
          line: l.line,
        }),
      );
      for (const ev of ['client:started', 'client:exited'] as const) this.runner.on(ev, () => this.refresh());
    }
    this.offEvents = o.events((e) => {
      if (this.tracker.event(e)) this.refreshSoon();
    });
    this.timer = setInterval(() => void this.poll(), o.reconcileMs ?? 30_000);
    this.timer.unref();
    void this.poll();
  }

  /**
   * Compiles the code and starts the clients (none when count is 0). A compile error does not fail
   * the connection: it is shown in the session and as `compile_failed`, and a save that compiles
   * starts the clients.
   */
  async start(): Promise<void> {
    if (!this.runner || !this.o.workspace) return;
    const r = await this.runner.start(this.o.workspace.clientCode());
    if (!r.ok) {
      this.compileFailed(this.compileErrors(r.errors));
      return;
    }
    this.record(r.codeVersion, r.rootDir, r.inputs, null);
    this.refresh();
  }

  async codeFiles(): Promise<CodeFiles> {
    const ws = this.requireWorkspace();
    const listed = await this.sources();
    const files = await Promise.all(
      listed.map(async (abs) => ({ path: ws.rel(abs)!, content: await ws.read(abs), editable: ws.editable(abs) })),
    );
    return { runId: this.o.ctx.runId, codeVersion: this.codeVersion, entry: ws.entryPath, files };
  }

  async saveCode(files: readonly CodeFile[]): Promise<SaveResult> {
    const ws = this.requireWorkspace();
    const { ctx } = this.o;
    if (!this.runner)
      throw new WorkbenchError(
        'no_clients',
        'this run has no local clients to restart (connect with a join token and an example)',
      );
    await ws.save(files);
    const previous = this.codeVersion;
    const r = await this.runner.swap(ws.clientCode());
    if (!r.ok) {
      const errors = this.compileErrors(r.errors);
      ctx.emit({ type: 'compile_failed', runId: ctx.runId, errors });
      return { ok: false, errors };
    }
    if (this.startFailed) {
      this.startFailed = false;
      ctx.session.recover('compile_failed');
    }
    this.record(r.codeVersion, r.rootDir, r.inputs, previous);
    this.refresh();
    return {
      ok: true,
      codeVersion: r.codeVersion,
      previousCodeVersion: previous,
      compileMs: r.compileMs,
      swapMs: r.spawnMs,
    };
  }

  clients(): ClientRow[] {
    return this.rows;
  }

  async clientAction(clientId: string, action: 'restart' | 'stop' | 'start'): Promise<void> {
    const local = this.runner?.status().clients.some((c) => c.clientId === clientId) ?? false;
    if (!this.runner || !local) {
      throw new WorkbenchError(
        this.rows.some((c) => c.clientId === clientId) ? 'not_local' : 'not_found',
        `${clientId} is not a client this workbench runs`,
      );
    }
    if (action === 'restart') await this.runner.restartClient(clientId);
    else if (action === 'stop') await this.runner.stopClient(clientId);
    else await this.runner.startClient(clientId);
    this.refresh();
  }

  /** A local client's recent log lines (the runner's ring; the Store has older runs'). */
  logs(clientId: string, limit: number): LogLine[] | null {
    if (!this.runner?.status().clients.some((c) => c.clientId === clientId)) return null;
    return this.runner
      .logs(clientId)
      .slice(-limit)
      .map((l) => ({
        t: l.t,
        source: clientSource(clientId),
        stream: l.stream === 'system' ? 'event' : l.stream,
        line: l.line,
      }));
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    clearInterval(this.timer);
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.offEvents();
    await this.runner?.dispose();
  }

  private requireWorkspace(): CodeWorkspace {
    if (!this.o.workspace)
      throw new WorkbenchError(
        'no_code',
        'this run has no client code (attach with an example to edit and run clients)',
      );
    return this.o.workspace;
  }

  /** The entry and every local source it bundles (absolute paths inside the workspace). */
  private async sources(): Promise<string[]> {
    const ws = this.requireWorkspace();
    // Before a successful compile, the folder's own sources stand in for the bundled ones.
    const known = this.lastInputs.length > 0 ? this.lastInputs : await ws.ownSources();
    const files = new Set<string>([ws.spec.entry, ...known]);
    return [...files]
      .filter((abs) => ws.rel(abs) !== null)
      .sort((a, b) => (a === ws.spec.entry ? -1 : b === ws.spec.entry ? 1 : a.localeCompare(b)));
  }

  private lastInputs: string[] = [];

  private record(codeVersion: string, rootDir: string, inputs: readonly SourceFile[], previous: string | null): void {
    const ws = this.o.workspace!;
    const { ctx } = this.o;
    const abs = inputs.map((f) => ({ abs: resolve(rootDir, f.path), contents: f.contents }));
    this.lastInputs = abs.map((f) => f.abs);
    const files: CodeFile[] = abs.flatMap((f) => {
      const rel = ws.rel(f.abs);
      return rel ? [{ path: rel, content: f.contents }] : [];
    });
    const step = this.o.currentStep();
    const time = Date.now();
    this.codeVersion = codeVersion;
    ctx.batcher.push((s) => {
      s.putCodeVersion(ctx.runId, { codeVersion, createdAt: time, step, files });
      s.setCodeVersionStep(ctx.runId, codeVersion, step);
    });
    if (previous !== null && previous !== codeVersion) {
      const marker = { codeVersion, previousCodeVersion: previous, time, step };
      ctx.batcher.push((s) => s.putMarker(ctx.runId, marker));
      ctx.emit({ type: 'code', runId: ctx.runId, marker });
    }
  }

  private compileFailed(errors: CompileError[]): void {
    const { ctx } = this.o;
    this.startFailed = true;
    const first = errors[0];
    ctx.session.fail(
      'compile_failed',
      `the client does not compile${first ? `: ${first.path}:${first.line}:${first.column}: ${first.message}` : ''}; fix it in the editor and save`,
    );
    ctx.emit({ type: 'compile_failed', runId: ctx.runId, errors });
  }

  private compileErrors(errors: readonly CompileMessage[]): CompileError[] {
    const ws = this.o.workspace;
    return errors.map((e) => ({ path: ws?.rel(e.file) ?? e.file, line: e.line, column: e.column, message: e.message }));
  }

  /** A status snapshot of the worker's clients (start, then every reconcileMs). */
  private async poll(): Promise<void> {
    if (this.polling || this.disposed) return;
    this.polling = true;
    this.tracker.beginSnapshot();
    try {
      const s = await this.o.http.status();
      this.tracker.applySnapshot(s.clients, s.eventSeq);
    } catch {
      // The worker is unreachable for now: the session shows it; events and local rows still update.
      this.tracker.abortSnapshot();
    } finally {
      this.polling = false;
    }
    if (!this.disposed) this.refresh();
  }

  private refreshSoon(): void {
    if (this.refreshTimer || this.disposed) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = null;
      this.refresh();
    }, REFRESH_MS);
    this.refreshTimer.unref();
  }

  private refresh(): void {
    if (this.disposed) return;
    const local = this.runner?.status().clients ?? [];
    const rows = mergeClientRows(local, this.tracker.list());
    if (JSON.stringify(rows) === JSON.stringify(this.rows)) return;
    const before = new Map(this.rows.map((r) => [r.clientId, JSON.stringify(r)]));
    this.rows = rows;
    const { ctx } = this.o;
    const changed = rows.filter((r) => before.get(r.clientId) !== JSON.stringify(r));
    if (changed.length > 0) ctx.batcher.push((s) => changed.forEach((r) => s.putClient(ctx.runId, r)));
    ctx.emit({ type: 'clients', clients: rows });
  }

  private log(l: LogLine): void {
    const { ctx } = this.o;
    ctx.batcher.push((s) => s.appendLog(ctx.runId, l));
    ctx.emit({ type: 'log', line: l });
  }
}
