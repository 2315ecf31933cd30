import { describe, expect, it } from 'vitest';
import { leastLoaded, RoutePolicy } from './route-policy';

const up = (load: number) => ({ healthy: true, load });
const down = (load = 0) => ({ healthy: false, load });

describe('RoutePolicy', () => {
  it('sends a new key to the least loaded healthy replica, ties to the lowest index', () => {
    expect(leastLoaded([up(3), up(1), up(1)])).toBe(1);
    expect(leastLoaded([down(0), up(5)])).toBe(1);
    expect(leastLoaded([down(), down()])).toBeNull();
  });

  it('keeps a key on its replica while it is healthy, even when another is less loaded', () => {
    const p = new RoutePolicy();
    expect(p.choose([up(0), up(4)], 'task:a')).toBe(0);
    expect(p.choose([up(9), up(0)], 'task:a')).toBe(0);
    expect(p.choose([up(9), up(0)], 'task:b')).toBe(1);
  });

  it('moves a key off a replica that went down, and keeps it on the new one after', () => {
    const p = new RoutePolicy();
    expect(p.choose([up(0), up(1)], 'ep_1')).toBe(0);
    expect(p.choose([down(), up(1)], 'ep_1')).toBe(1);
    expect(p.choose([up(0), up(7)], 'ep_1')).toBe(1);
    expect(p.keysOn(1)).toBe(1);
  });

  it('routes calls without a key by load alone and pins nothing', () => {
    const p = new RoutePolicy();
    expect(p.choose([up(2), up(1)], undefined)).toBe(1);
    expect(p.size).toBe(0);
  });

  it('answers null when no replica is healthy', () => {
    expect(new RoutePolicy().choose([down(), down()], 'k')).toBeNull();
  });

  it('bounds its table, dropping the least recently used key', () => {
    const p = new RoutePolicy(2);
    p.choose([up(0)], 'a');
    p.choose([up(0)], 'b');
    p.choose([up(0)], 'a'); // a is now the most recent
    p.choose([up(0), up(0)], 'c');
    expect(p.size).toBe(2);
    expect(p.choose([up(5), up(0)], 'a')).toBe(0); // still pinned
    expect(p.choose([up(5), up(0)], 'b')).toBe(1); // forgotten: least loaded
  });
});
