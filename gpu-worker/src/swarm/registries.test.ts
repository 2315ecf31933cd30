import { describe, expect, it } from 'vitest';
import { ClientRegistry, openCountsByClient } from './clients';
import { EpisodeRegistry, isExpired, summarize } from './episodes';

describe('EpisodeRegistry', () => {
  it('expires open, idle episodes only, never one with a call in flight', () => {
    const r = new EpisodeRegistry();
    const a = r.create({ id: 'ep_a', clientId: 'c', kind: 'train', timeoutMs: 100, now: 0 });
    const b = r.create({ id: 'ep_b', clientId: 'c', kind: 'eval', timeoutMs: 100, now: 0 });
    r.beginCall(b, 50);
    expect(r.expired(500).map((e) => e.id)).toEqual(['ep_a']);
    r.endCall(b, 500);
    expect(r.expired(550)).toEqual([a]);
    expect(r.expired(601).map((e) => e.id)).toEqual(['ep_a', 'ep_b']);
    expect(isExpired({ ...a, status: 'ended' }, 1e9)).toBe(false);
  });

  it('numbers calls, waits for in-flight calls, and keeps a bounded number of finished episodes', async () => {
    const r = new EpisodeRegistry(2);
    const ep = r.create({ id: 'ep_x', clientId: 'c', kind: 'train', taskId: 't', timeoutMs: 1000, now: 0 });
    expect([r.beginCall(ep, 1), r.beginCall(ep, 2)]).toEqual([0, 1]);
    let idle = false;
    const waiting = r.whenIdle(ep).then(() => (idle = true));
    r.endCall(ep, 3);
    await Promise.resolve();
    expect(idle).toBe(false);
    r.endCall(ep, 4);
    await waiting;
    r.finish(ep, 'ended', 5, { result: { taskId: 't', reward: 1, success: true } });
    expect(summarize(ep)).toMatchObject({ status: 'ended', reward: 1, success: true, taskId: 't', finishedAt: 5 });
    for (const id of ['ep_y', 'ep_z'])
      r.finish(r.create({ id, clientId: 'c', kind: 'train', timeoutMs: 1, now: 9 }), 'aborted', 10);
    expect(r.get('ep_x')).toBeUndefined();
    expect(
      r
        .list({ status: 'aborted' })
        .map((e) => e.id)
        .sort(),
    ).toEqual(['ep_y', 'ep_z']);
  });
});

describe('ClientRegistry', () => {
  it('tracks joins, liveness, counters and sync agreements', () => {
    const r = new ClientRegistry(100);
    expect(r.seen('a', 0)).toEqual({ joined: true });
    expect(r.seen('a', 10)).toEqual({ joined: false });
    r.seen('b', 50);
    r.agree('a');
    r.count('a', 'calls', 3);
    expect(r.agreedIds()).toEqual(['a']);
    expect(r.sweep(120)).toEqual(['a']);
    expect(r.activeIds()).toEqual(['b']);
    expect(r.agreedIds()).toEqual([]);
    expect(r.seen('a', 130)).toEqual({ joined: true });
    expect(r.leave('b')).toBe(true);
    expect(r.leave('b')).toBe(false);
    expect(r.list(new Map()).find((c) => c.clientId === 'a')?.counters.calls).toBe(3);
  });

  it('forgets inactive clients after the retention period, never active ones', () => {
    const r = new ClientRegistry(100, 1000);
    r.seen('gone', 0);
    r.seen('busy', 0);
    expect(r.sweep(200)).toEqual(['gone', 'busy']);
    r.seen('busy', 900);
    r.sweep(1300);
    expect(r.has('gone')).toBe(false);
    expect(r.has('busy')).toBe(true);
    expect(r.size).toBe(1);
    // Going silent again: inactive, then forgotten a retention period after its last activity.
    expect(r.sweep(1001 + 900)).toEqual([]);
    expect(r.has('busy')).toBe(false);
  });

  it('counts open episodes per client in one pass', () => {
    const counts = openCountsByClient([{ clientId: 'a' }, { clientId: 'b' }, { clientId: 'a' }]);
    expect([...counts]).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
    const r = new ClientRegistry(100);
    r.seen('a', 0);
    r.seen('c', 0);
    expect(r.list(counts).map((c) => [c.clientId, c.openEpisodes])).toEqual([
      ['a', 2],
      ['c', 0],
    ]);
  });
});
