import { describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../shared/workbench-api';
import { PendingCalls } from './pending-calls';

describe('PendingCalls', () => {
  it('gives distinct ids and settles the right call', async () => {
    const p = new PendingCalls();
    const a = p.add('session');
    const b = p.add('runs');
    expect(a.id).not.toBe(b.id);
    expect(p.resolve(b.id, 'B')).toBe(true);
    expect(p.resolve(a.id, 'A')).toBe(true);
    await expect(a.promise).resolves.toBe('A');
    await expect(b.promise).resolves.toBe('B');
    expect(p.size).toBe(0);
  });
  it('ignores unknown and duplicate replies', async () => {
    const p = new PendingCalls();
    const a = p.add('session');
    expect(p.resolve(999, 'x')).toBe(false);
    expect(p.resolve(a.id, 1)).toBe(true);
    expect(p.resolve(a.id, 2)).toBe(false);
    await expect(a.promise).resolves.toBe(1);
  });
  it('rejects with a WorkbenchError carrying the wire code', async () => {
    const p = new PendingCalls();
    const a = p.add('connectRemote');
    p.reject(a.id, { code: 'unreachable', message: 'cannot reach http://nope' });
    const err = await a.promise.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkbenchError);
    expect(err).toMatchObject({ code: 'unreachable', message: 'cannot reach http://nope' });
  });
  it('fails all calls, naming each method', async () => {
    const p = new PendingCalls();
    const a = p.add('session');
    const b = p.add('clients');
    expect(p.failAll('disconnected', 'lost')).toBe(2);
    await expect(a.promise).rejects.toThrow('session: lost');
    await expect(b.promise).rejects.toThrow('clients: lost');
    expect(p.size).toBe(0);
  });
});
