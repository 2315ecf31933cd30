// What the services of one live run share: the run's id and folder, the Store with its write
// batcher, the event sink, and the Session object (every change pushed as a `session` event).
import type { Activity, Session, SessionErrorCode, WorkbenchEvent } from '../../shared/workbench-api';
import type { Store } from '../store/types';
import type { WriteBatcher } from './write-batcher';

export interface RunContext {
  readonly runId: string;
  readonly runDir: string;
  readonly store: Store;
  readonly batcher: WriteBatcher;
  readonly session: SessionState;
  emit(e: WorkbenchEvent): void;
  log(line: string): void;
}

export class SessionState {
  private current: Session;

  constructor(
    initial: Session,
    private readonly emit: (e: WorkbenchEvent) => void,
  ) {
    this.current = initial;
  }

  get(): Session {
    return this.current;
  }

  /** Applies a change; pushes a `session` event when anything differs. */
  patch(p: Partial<Session>): void {
    const next = { ...this.current, ...p };
    if (JSON.stringify(next) === JSON.stringify(this.current)) return;
    this.current = next;
    this.emit({ type: 'session', session: next });
  }

  /** Something went wrong, for this cause. */
  fail(code: SessionErrorCode, message: string, extra: Partial<Session> = {}): void {
    this.patch({ ...extra, error: { code, message } });
  }

  /** The problem of this cause (if it is the current one) is over. */
  recover(code: SessionErrorCode, extra: Partial<Session> = {}): void {
    this.patch(this.current.error?.code === code ? { ...extra, error: null } : extra);
  }

  activity(phase: Activity['phase'] | null, detail = '', fraction: number | null = null): void {
    this.patch({ activity: phase === null ? null : { phase, detail, fraction } });
  }
}
