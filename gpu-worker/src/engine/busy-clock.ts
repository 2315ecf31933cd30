// Time during which a condition held (a gate with generations in flight, generation paused for an
// update, the trainer inside an update), read as the share of the wall time since the previous read.
// Pure: the caller passes the clock's readings.

export class BusyClock {
  private since: number | null = null;
  private heldMs = 0;
  private readAt: number;

  constructor(now: number) {
    this.readAt = now;
  }

  /** The condition holds from `now` on (true) or stops holding at `now` (false). */
  set(on: boolean, now: number): void {
    if (on && this.since === null) this.since = now;
    else if (!on && this.since !== null) {
      this.heldMs += now - this.since;
      this.since = null;
    }
  }

  get on(): boolean {
    return this.since !== null;
  }

  /** { held ms, wall ms } since the previous take, and starts a new window. */
  take(now: number): { heldMs: number; wallMs: number } {
    if (this.since !== null) {
      this.heldMs += now - this.since;
      this.since = now;
    }
    const out = { heldMs: this.heldMs, wallMs: now - this.readAt };
    this.heldMs = 0;
    this.readAt = now;
    return out;
  }
}

/** held / wall, 0 for an empty window. */
export const fraction = (w: { heldMs: number; wallMs: number }): number =>
  w.wallMs > 0 ? Math.min(1, w.heldMs / w.wallMs) : 0;
