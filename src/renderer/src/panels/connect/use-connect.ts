// The Connect panel's hooks: the examples list (loaded once the transport is up) and running one
// connect action at a time — its label is the store's `pending` (the status bar shows it), its
// failure the panel's error, its session taking over the view.
import { useCallback, useEffect, useState } from 'react';
import type { ExampleInfo, Session, WorkbenchApi } from '../../../../shared/workbench-api';
import { applySession, openRun } from '../../store/state';
import { setPending, useApp, type AppStore } from '../../store/store';
import { errorMessage } from '../../store/toasts';

export function useExamples(api: WorkbenchApi, online: boolean, onError: (message: string) => void): ExampleInfo[] {
  const [examples, setExamples] = useState<ExampleInfo[]>([]);
  useEffect(() => {
    if (!online) return;
    let live = true;
    api.examples({}).then(
      (r) => live && setExamples(r.examples),
      (err: unknown) => live && onError(`Could not list the examples: ${errorMessage(err)}`),
    );
    return () => {
      live = false;
    };
  }, [api, online, onError]);
  return examples;
}

export interface ConnectAction {
  /** The action in progress (its label), or null. */
  busy: string | null;
  error: string | null;
  setError: (message: string | null) => void;
  run: (label: string, fn: () => Promise<Session | null>) => void;
}

export function useConnectAction(store: AppStore): ConnectAction {
  const busy = useApp(store, (s) => s.pending);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(
    (label: string, fn: () => Promise<Session | null>): void => {
      setPending(store, label);
      setError(null);
      fn()
        .then(
          // A session the user just started takes over the view, even from a reopened run.
          (s) => store.setState((st) => (s ? openRun(applySession(st, s), s.runId) : applySession(st, s))),
          (err: unknown) => setError(errorMessage(err)),
        )
        .finally(() => setPending(store, null));
    },
    [store],
  );
  return { busy, error, setError, run };
}
