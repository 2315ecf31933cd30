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
}

export type AppStore = StoreApi<AppState>;

export function createAppStore(): AppStore {
  return createStore<AppState>(() => ({ ...initialState, toasts: [], pending: null }));
}

let toastSeq = 0;

export function pushToast(store: AppStore, message: string, now: number = Date.now()): void {
  store.setState((s) => ({ toasts: addToast(s.toasts, { id: ++toastSeq, message, at: now }) }));
}

export function closeToast(store: AppStore, id: number): void {
  store.setState((s) => ({ toasts: dismissToast(s.toasts, id) }));
}

export function setPending(store: AppStore, pending: string | null): void {
  store.setState({ pending });
}

export function useApp<U>(store: AppStore, selector: (s: AppState) => U): U {
  return useStore(store, selector);
}
