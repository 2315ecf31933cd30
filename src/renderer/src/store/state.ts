// The renderer's view state and its pure reducers: every WorkbenchEvent and every loaded result
// maps (state, input) → state, with no React, no I/O and no clock, so each is unit-tested.
import type {
  ClientRow,
  CodeMarker,
  CompileError,
  EpisodeRow,
  EvalPoint,
  LogLine,
  RunMetrics,
  Session,
  StepPoint,
  WorkbenchEvent,
} from '../../../shared/workbench-api';
import type { ConnectionStatus } from '../api/ws-transport';

/** In-memory caps: enough for long runs, bounded for a window left open for days. */
export const LIMITS = { steps: 50_000, evals: 10_000, markers: 2_000, episodes: 500, logs: 5_000 } as const;

export interface WorkbenchState {
  connection: ConnectionStatus;
  session: Session | null;
  /** The run the charts and inspector show: the live one, or a reopened one. */
  runId: string | null;
  /** Whether `runId` follows the live session (new sessions take over the view). */
  followLive: boolean;
  steps: StepPoint[];
  evals: EvalPoint[];
  markers: CodeMarker[];
  /** Whether `steps`/`evals`/`markers` hold the stored history of `runId` (not only live points). */
  metricsLoaded: boolean;
  clients: ClientRow[];
  /** Most recent first. */
  episodes: EpisodeRow[];
  logs: LogLine[];
  /** The live session's client code's last compile errors (the one place they are kept; the editor shows them). */
  compileErrors: CompileError[];
}

export const initialState: WorkbenchState = {
  connection: 'connecting',
  session: null,
  runId: null,
  followLive: true,
  steps: [],
  evals: [],
  markers: [],
  metricsLoaded: false,
  clients: [],
  episodes: [],
  logs: [],
  compileErrors: [],
};

/** Appends, keeping the last `cap` items. */
export function appendCapped<T>(list: readonly T[], item: T, cap: number): T[] {
  const out = list.length >= cap ? list.slice(list.length - cap + 1) : list.slice();
  out.push(item);
  return out;
}

/** Inserts by a numeric key, replacing an item with the same key; keeps ascending order and the cap. */
export function upsertSorted<T>(list: readonly T[], item: T, key: (t: T) => number, cap: number): T[] {
  const k = key(item);
  const last = list.at(-1);
  if (!last || key(last) < k) return appendCapped(list, item, cap);
  const out = list.slice();
  let i = out.length - 1;
  while (i >= 0 && key(out[i]!) > k) i--;
  if (i >= 0 && key(out[i]!) === k) out[i] = item;
  else out.splice(i + 1, 0, item);
  return out.length > cap ? out.slice(out.length - cap) : out;
}

function mergeByKey<T>(a: readonly T[], b: readonly T[], key: (t: T) => number, cap: number): T[] {
  let out = a.slice().sort((x, y) => key(x) - key(y));
  for (const item of b) out = upsertSorted(out, item, key, Number.MAX_SAFE_INTEGER);
  return out.length > cap ? out.slice(out.length - cap) : out;
}

const stepKey = (p: StepPoint): number => p.step;
const evalKey = (p: EvalPoint): number => p.weightVersion;
const markerKey = (m: CodeMarker): number => m.time;

/** What the view holds for a run that is not (yet) loaded. */
function emptyRunView(state: WorkbenchState, runId: string | null, followLive: boolean): WorkbenchState {
  return { ...state, runId, followLive, steps: [], evals: [], markers: [], metricsLoaded: false, episodes: [] };
}

export function applySession(state: WorkbenchState, session: Session | null): WorkbenchState {
  if (!session) return { ...state, session: null, clients: [], compileErrors: [] };
  const compileErrors = state.session?.runId === session.runId ? state.compileErrors : [];
  if (state.followLive && state.runId !== session.runId)
    return { ...emptyRunView(state, session.runId, true), session, compileErrors };
  return { ...state, session, compileErrors };
}

/** The outcome of a compile of the live session's code (a save): its errors, none after a success. */
export function applyCompileResult(state: WorkbenchState, errors: readonly CompileError[]): WorkbenchState {
  return { ...state, compileErrors: [...errors] };
}

/** Reopens a past run (or the live one); the view is emptied until its metrics arrive. */
export function openRun(state: WorkbenchState, runId: string): WorkbenchState {
  const followLive = state.session?.runId === runId;
  if (state.runId === runId) return { ...state, followLive };
  return emptyRunView(state, runId, followLive);
}

/** Merges stored metrics with any live points that arrived while they loaded. */
export function applyMetrics(state: WorkbenchState, metrics: RunMetrics): WorkbenchState {
  if (metrics.runId !== state.runId) return state;
  return {
    ...state,
    steps: mergeByKey(metrics.steps, state.steps, stepKey, LIMITS.steps),
    evals: mergeByKey(metrics.evals, state.evals, evalKey, LIMITS.evals),
    markers: mergeByKey(metrics.markers, state.markers, markerKey, LIMITS.markers),
    metricsLoaded: true,
  };
}

export function applyEvent(state: WorkbenchState, event: WorkbenchEvent): WorkbenchState {
  switch (event.type) {
    case 'session':
      return applySession(state, event.session);
    case 'step':
      if (event.runId !== state.runId) return state;
      return { ...state, steps: upsertSorted(state.steps, event.point, stepKey, LIMITS.steps) };
    case 'eval':
      if (event.runId !== state.runId) return state;
      return { ...state, evals: upsertSorted(state.evals, event.point, evalKey, LIMITS.evals) };
    case 'code': {
      // A new version took over: the live code compiles now.
      const cleared = event.runId === state.session?.runId ? { ...state, compileErrors: [] } : state;
      if (event.runId !== state.runId) return cleared;
      if (state.markers.some((m) => m.codeVersion === event.marker.codeVersion && m.time === event.marker.time))
        return cleared;
      return { ...cleared, markers: upsertSorted(state.markers, event.marker, markerKey, LIMITS.markers) };
    }
    case 'compile_failed':
      if (event.runId !== state.session?.runId) return state;
      return { ...state, compileErrors: event.errors };
    case 'episode': {
      if (event.runId !== state.runId) return state;
      const rest = state.episodes.filter((e) => e.episodeId !== event.row.episodeId);
      return { ...state, episodes: [event.row, ...rest].slice(0, LIMITS.episodes) };
    }
    case 'clients':
      return { ...state, clients: event.clients };
    case 'log':
      return { ...state, logs: appendCapped(state.logs, event.line, LIMITS.logs) };
    case 'trained':
      return state; // the inspector reloads the episode it shows (InspectorPanel)
    case 'reward_model':
      return state; // the Rewards panel follows these itself
    case 'reward_hacking': {
      // The backend's alarm (hacking-watch.ts) goes into the log view; sync.ts also toasts it when it rings.
      const line = { t: event.at, source: { kind: 'worker' as const }, stream: 'event' as const };
      return {
        ...state,
        logs: appendCapped(
          state.logs,
          { ...line, line: `[warn] rewards (run ${event.runId}): ${event.message}` },
          LIMITS.logs,
        ),
      };
    }
  }
}

/** The newest episode event of the viewed run (the inspector refreshes on it). */
export function latestEpisode(state: WorkbenchState): EpisodeRow | null {
  return state.episodes[0] ?? null;
}

/** Whether the viewed run is the live session's. */
export function isLive(state: WorkbenchState): boolean {
  return state.session !== null && state.session.runId === state.runId;
}
