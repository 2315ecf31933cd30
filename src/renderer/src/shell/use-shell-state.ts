// What the workbench shell reads from the store (each slice its own subscription), and the
// shell's actions on it.
import { useCallback, type Dispatch, type SetStateAction } from 'react';
import type { WorkbenchApi } from '../../../shared/workbench-api';
import { isLive, latestEpisode, openRun } from '../store/state';
import { closeToast, useApp, type AppStore } from '../store/store';
import type { PanelId } from './panels';

export function useShellState(store: AppStore) {
  return {
    connection: useApp(store, (s) => s.connection),
    session: useApp(store, (s) => s.session),
    runId: useApp(store, (s) => s.runId),
    live: useApp(store, isLive),
    steps: useApp(store, (s) => s.steps),
    evals: useApp(store, (s) => s.evals),
    markers: useApp(store, (s) => s.markers),
    loaded: useApp(store, (s) => s.metricsLoaded),
    clients: useApp(store, (s) => s.clients),
    logs: useApp(store, (s) => s.logs),
    lastEpisode: useApp(store, latestEpisode),
    toasts: useApp(store, (s) => s.toasts),
    pending: useApp(store, (s) => s.pending),
  };
}

export type ShellState = ReturnType<typeof useShellState>;

/** The shell's actions: open a run (in the charts), back to the live run, close a toast, open a task. */
export function useShellActions(
  store: AppStore,
  api: WorkbenchApi,
  setPanel: Dispatch<SetStateAction<PanelId>>,
  reportError: (message: string) => void,
) {
  const openRunById = useCallback(
    (id: string) => {
      store.setState((s) => openRun(s, id));
      setPanel('charts');
    },
    [store, setPanel],
  );
  const backToLive = useCallback(() => {
    const id = store.getState().session?.runId;
    if (id) store.setState((s) => openRun(s, id));
  }, [store]);
  const onCloseToast = useCallback((id: number) => closeToast(store, id), [store]);
  // A task folder from "New task from description" opens in the editor: a local run of that folder.
  const openTask = useCallback(
    (dir: string) => {
      setPanel('editor');
      api
        .connectLocal({ example: dir })
        .catch((err: unknown) => reportError(err instanceof Error ? err.message : String(err)));
    },
    [api, reportError, setPanel],
  );
  return { openRunById, backToLive, onCloseToast, openTask };
}
