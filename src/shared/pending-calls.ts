// Request/response correlation, one helper for every channel that answers calls by id (the engine's
// stdio frames, the optimiser's JSON lines, the workbench's WebSocket bridge): it allocates ids,
// keeps each call's own data, settles a call by id, fails a call whose deadline passed, and fails
// every call at once when the channel is lost. The clock comes in, so it stays pure and tests
// drive it with a fake one.

/** The timer functions deadlines need (the global ones, or a test's fake clock). */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface PendingCallsOptions<T> {
  /** Needed for deadlines; without it `add` ignores them. */
  timers?: Timers;
  /** The error a call whose deadline passed is rejected with (it is no longer pending by then). */
  expired?: (id: number, data: T, ms: number) => Error;
}

interface Entry<T> {
  data: T;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  timer: unknown;
}

export class PendingCalls<T> {
  private nextId = 1;
  private readonly calls = new Map<number, Entry<T>>();
  private closed: Error | null = null;

  constructor(private readonly opts: PendingCallsOptions<T> = {}) {}

  get size(): number {
    return this.calls.size;
  }

  /**
   * Registers a call; returns its id and the promise its answer settles. `deadlineMs` (finite,
   * with timers): past it the call is removed and rejected. After `dispose` the promise is rejected.
   */
  add(data: T, deadlineMs?: number): { id: number; promise: Promise<unknown> } {
    const id = this.nextId++;
    if (this.closed) return { id, promise: Promise.reject(this.closed) };
    const promise = new Promise<unknown>((resolve, reject) => {
      const entry: Entry<T> = { data, resolve, reject, timer: null };
      const timers = this.opts.timers;
      if (timers && deadlineMs !== undefined && Number.isFinite(deadlineMs))
        entry.timer = timers.setTimeout(() => this.expire(id, deadlineMs), Math.max(0, deadlineMs));
      this.calls.set(id, entry);
    });
    return { id, promise };
  }

  has(id: number): boolean {
    return this.calls.has(id);
  }

  /** The data of a pending call. */
  get(id: number): T | undefined {
    return this.calls.get(id)?.data;
  }

  /** The ids of the pending calls, oldest first. */
  ids(): number[] {
    return [...this.calls.keys()];
  }

  /** Settles the call with this id; false when no such call is pending (a late or foreign answer). */
  resolve(id: number, value: unknown): boolean {
    const entry = this.take(id);
    entry?.resolve(value);
    return entry !== undefined;
  }

  reject(id: number, err: Error): boolean {
    const entry = this.take(id);
    entry?.reject(err);
    return entry !== undefined;
  }

  /** Fails every pending call (the channel was lost) with the error `errorFor` makes for it; returns how many. */
  rejectAll(errorFor: (data: T, id: number) => Error): number {
    const all = [...this.calls.entries()];
    for (const [id] of all) this.take(id);
    for (const [id, entry] of all) entry.reject(errorFor(entry.data, id));
    return all.length;
  }

  /** Fails every pending call with `err`, and every later one at once. */
  dispose(err: Error): void {
    this.closed ??= err;
    this.rejectAll(() => err);
  }

  private take(id: number): Entry<T> | undefined {
    const entry = this.calls.get(id);
    if (!entry) return undefined;
    this.calls.delete(id);
    if (entry.timer !== null) this.opts.timers?.clearTimeout(entry.timer);
    return entry;
  }

  private expire(id: number, ms: number): void {
    const entry = this.calls.get(id);
    if (!entry) return;
    this.calls.delete(id);
    entry.reject(this.opts.expired?.(id, entry.data, ms) ?? new Error(`call ${id} got no answer within ${ms} ms`));
  }
}
