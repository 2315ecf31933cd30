// Keeps the store in step with main: applies pushed events through the pure reducers, resyncs
// (session, clients, the viewed run's metrics) whenever the transport (re)opens, and loads the
// stored metrics whenever the viewed run changes. Returns its dispose function.
import type { WorkbenchApi } from '../../../shared/workbench-api';
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
}

export function startSync({ api, store, status, onStatus, reportError }: SyncDeps): () => void {
  let disposed = false;

  const loadMetrics = async (runId: string): Promise<void> => {
    try {
      const metrics = await api.metrics({ runId });
      if (!disposed) store.setState((s) => applyMetrics(s, metrics));
    } catch (err) {
      if (!disposed) reportError(`Could not load the run's metrics: ${errorMessage(err)}`);
    }
  };

  const resync = async (): Promise<void> => {
    try {
      const session = await api.session({});
      if (disposed) return;
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
    if (!disposed) store.setState((s) => applyEvent(s, event));
  });
  const offStore = store.subscribe((s, prev) => {
    if (s.runId && s.runId !== prev.runId) void loadMetrics(s.runId);
  });
  const offStatus = onStatus((st) => {
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
