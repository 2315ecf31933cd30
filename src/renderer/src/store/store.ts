// The zustand store: the view state (state.ts) plus toasts. Components read it with `useWorkbench`;
// only the sync layer (sync.ts) and the panels' actions write it, always through the pure reducers.
import { useStore } from 'zustand';
import { createStore, type StoreApi } from 'zustand/vanilla';
import { initialState, type WorkbenchState } from './state';
import { addToast, dismissToast, type Toast } from './toasts';

export interface AppState extends WorkbenchState {
  toasts: Toast[];
  /** The connect action in progress (shown in the status bar until the session reports its own activity). */
  pending: string | null;
  /** An episode another panel asked the inspector to open (reward try's changed episodes), with what to compare. */
  inspect: InspectRequest | null;
}

/** Open `episodeId` in the inspector; `compare` is shown beside it (e.g. its recorded vs tried reward). */
export interface InspectRequest {
  runId: string;
  episodeId: string;
  compare: { title: string; rows: { label: string; old: string; new: string }[] } | null;
  /** Distinguishes two requests for the same episode. */
  seq: number;
}

export type AppStore = StoreApi<AppState>;

export function createAppStore(): AppStore {
  return createStore<AppState>(() => ({ ...initialState, toasts: [], pending: null, inspect: null }));
}

let toastSeq = 0;

export function pushToast(store: AppStore, message: string, now: number = Date.now()): void {
  store.setState((s) => ({ toasts: addToast(s.toasts, { id: ++toastSeq, message, at: now }) }));
}

export function closeToast(store: AppStore, id: number): void {
  store.setState((s) => ({ toasts: dismissToast(s.toasts, id) }));
}

let inspectSeq = 0;

/** Asks the shell to show the inspector with this episode (App.tsx switches the panel). */
export function requestInspect(store: AppStore, request: Omit<InspectRequest, 'seq'>): void {
  store.setState({ inspect: { ...request, seq: ++inspectSeq } });
}

export function setPending(store: AppStore, pending: string | null): void {
  store.setState({ pending });
}

export function useApp<U>(store: AppStore, selector: (s: AppState) => U): U {
  return useStore(store, selector);
}
