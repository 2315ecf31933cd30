import { describe, expect, it } from 'vitest';
import { WorkbenchError, type WorkbenchMethod } from '../../../shared/workbench-api';
import { createIpcTransport, unwrapIpcReply } from './ipc-transport';

/** A fake preload transport answering from a table. */
class FakeIpc {
  readonly calls: [WorkbenchMethod, unknown][] = [];
  listeners = new Set<(raw: unknown) => void>();
  constructor(private readonly answer: (m: WorkbenchMethod) => unknown) {}
  invoke(method: WorkbenchMethod, params: unknown): Promise<unknown> {
    this.calls.push([method, params]);
    return Promise.resolve(this.answer(method));
  }
  subscribe(l: (raw: unknown) => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
}

describe('IPC transport', () => {
  it('unwraps ok replies and throws the carried error otherwise', () => {
    expect(unwrapIpcReply('session', { ok: true, result: null })).toBeNull();
    expect(() =>
      unwrapIpcReply('connectLocal', {
        ok: false,
        error: { type: 'workbench', code: 'model_missing', message: 'no model at /x' },
      }),
    ).toThrow(new WorkbenchError('model_missing', 'no model at /x'));
    expect(() => unwrapIpcReply('session', { weird: true })).toThrow(/session: malformed reply/);
  });
  it('passes method and params through and subscribes to events', async () => {
    const ipc = new FakeIpc((m) =>
      m === 'runs'
        ? { ok: true, result: { runs: [] } }
        : { ok: false, error: { type: 'workbench', code: 'x', message: 'nope' } },
    );
    const t = createIpcTransport(ipc);
    await expect(t.call('runs', {})).resolves.toEqual({ runs: [] });
    await expect(t.call('session', {})).rejects.toThrow('nope');
    expect(ipc.calls).toEqual([
      ['runs', {}],
      ['session', {}],
    ]);
    const got: unknown[] = [];
    const off = t.subscribe((e) => got.push(e));
    for (const l of ipc.listeners) l({ type: 'session', session: null });
    off();
    expect(ipc.listeners.size).toBe(0);
    expect(got).toHaveLength(1);
  });
});
