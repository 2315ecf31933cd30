// The server's event log: stamps each event with the next sequence number and the time, keeps
// the most recent `capacity` events for viewers that reconnect, and answers "what came after
// seq N" (with `gap` when some of it is gone). Pure apart from the injected clock.
import type { SwarmEvent, SwarmEventBody } from '../../../src/shared/swarm-events';

export class EventLog {
  private events: SwarmEvent[] = [];
  private last = 0;

  constructor(
    private readonly capacity = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  append(body: SwarmEventBody): SwarmEvent {
    const event = { ...body, seq: ++this.last, time: this.now() } as SwarmEvent;
    this.events.push(event);
    // Trim in batches so appends stay O(1) amortised.
    if (this.events.length > this.capacity * 1.25) this.events = this.events.slice(this.events.length - this.capacity);
    return event;
  }

  get lastSeq(): number {
    return this.last;
  }

  /** The oldest sequence number still held (lastSeq + 1 when empty). */
  get oldestSeq(): number {
    return this.events[0]?.seq ?? this.last + 1;
  }

  /** Events with seq > `since`; `gap` when some of them are no longer held. */
  since(since: number): { events: SwarmEvent[]; gap: boolean } {
    const from = Math.max(0, Math.floor(since));
    const gap = from + 1 < this.oldestSeq && from < this.last;
    const start = this.events.findIndex((e) => e.seq > from);
    return { events: start < 0 ? [] : this.events.slice(start), gap };
  }
}
