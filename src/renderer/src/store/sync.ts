// Keeps the store in step with main: applies pushed events through the pure reducers, resyncs
// (session, clients, the viewed run's metrics) whenever the transport (re)opens, and loads the
// stored metrics whenever the viewed run changes. Returns its dispose function.
//
// Pushed events are coalesced: a training run pushes tens of events a second (more with more
// clients), and one store update each would re-render the shell per event. They queue and are
// applied together, in arrival order, at most once per `EVENT_FLUSH_MS`; anything else the sync
// writes flushes the queue first, so the order of events and loaded results is kept.
import type { WorkbenchApi, WorkbenchEvent } from '../../../shared/workbench-api';
import type { ConnectionStatus } from '../api/ws-transport';
import type { AppStore } from './store';
import { applyEvent, applyMetrics, applySession } from './state';
import { errorMessage } from './toasts';

export interface SyncDeps {
  api: WorkbenchApi;
  store: AppStore;
  status(): ConnectionStatus;
  onStatus(listener: (s: ConnectionStatus) => void): () => void;
  reportError(message: string): void;
  /** Runs `flush` later (default: after `EVENT_FLUSH_MS`); called at most once per queued batch. */
  schedule?: (flush: () => void) => void;
}

/** The longest a pushed event waits before it reaches the store (about two frames). */
export const EVENT_FLUSH_MS = 33;

const defaultSchedule = (flush: () => void): void => void setTimeout(flush, EVENT_FLUSH_MS);

export function startSync({
  api,
  store,
  status,
  onStatus,
  reportError,
  schedule = defaultSchedule,
}: SyncDeps): () => void {
  let disposed = false;
  let queued: WorkbenchEvent[] = [];
  let scheduled = false;

  const flush = (): void => {
    scheduled = false;
    if (disposed || queued.length === 0) return;
    const batch = queued;
    queued = [];
    store.setState((s) => batch.reduce(applyEvent, s));
  };

  const loadMetrics = async (runId: string): Promise<void> => {
    try {
      const metrics = await api.metrics({ runId });
      flush();
      if (!disposed) store.setState((s) => applyMetrics(s, metrics));
    } catch (err) {
      if (!disposed) reportError(`Could not load the run's metrics: ${errorMessage(err)}`);
    }
  };

  const resync = async (): Promise<void> => {
    try {
      const session = await api.session({});
      if (disposed) return;
      flush();
      const before = store.getState().runId;
      store.setState((s) => applySession(s, session));
      const runId = store.getState().runId;
      // A changed runId loads through the subscription below; an unchanged one reloads here.
      if (runId && runId === before) await loadMetrics(runId);
      if (session) {
        const { clients } = await api.clients({});
        if (!disposed) store.setState({ clients });
      }
    } catch (err) {
      if (!disposed) reportError(`Could not reach the workbench: ${errorMessage(err)}`);
    }
  };

  const offEvents = api.onEvent((event) => {
    if (disposed) return;
    if (event.type === 'reward_hacking' && event.verdict.alarm) reportError(event.message);
    queued.push(event);
    if (scheduled) return;
    scheduled = true;
    schedule(flush);
  });
  const offStore = store.subscribe((s, prev) => {
    if (s.runId && s.runId !== prev.runId) void loadMetrics(s.runId);
  });
  const offStatus = onStatus((st) => {
    flush();
    store.setState({ connection: st });
    if (st === 'open') void resync();
  });
  store.setState({ connection: status() });
  if (status() === 'open') void resync();

  return () => {
    disposed = true;
    offEvents();
    offStore();
    offStatus();
  };
}
