import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventLog } from './event-log';

const log = (message: string) => ({ type: 'log' as const, level: 'info' as const, source: 't', message });

describe('EventLog', () => {
  it('numbers events from 1 and replays what came after a sequence number', () => {
    const l = new EventLog(100, () => 42);
    for (let i = 0; i < 5; i++) l.append(log(`m${i}`));
    expect(l.lastSeq).toBe(5);
    expect(l.since(3)).toEqual({
      events: [expect.objectContaining({ seq: 4, time: 42 }), expect.objectContaining({ seq: 5, message: 'm4' })],
      gap: false,
    });
    expect(l.since(5).events).toEqual([]);
    expect(l.since(0).events).toHaveLength(5);
  });

  it('reports a gap once old events are trimmed', () => {
    const l = new EventLog(10);
    for (let i = 0; i < 30; i++) l.append(log(`m${i}`));
    expect(l.oldestSeq).toBeGreaterThan(1);
    const { events, gap } = l.since(0);
    expect(gap).toBe(true);
    expect(events[0]!.seq).toBe(l.oldestSeq);
    expect(l.since(l.lastSeq).gap).toBe(false);
  });

  it('replays a contiguous, increasing suffix for any resume point', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 80 }),
        fc.integer({ min: -5, max: 90 }),
        (cap, n, since) => {
          const l = new EventLog(cap);
          for (let i = 0; i < n; i++) l.append(log(String(i)));
          const { events, gap } = l.since(since);
          events.forEach((e, i) => expect(e.seq).toBe(events[0]!.seq + i));
          if (events.length > 0) expect(events.at(-1)!.seq).toBe(n);
          if (!gap) expect(events.length).toBe(Math.max(0, n - Math.max(0, since)));
        },
      ),
    );
  });
});
