// Shutdown (what SIGTERM does) with an engine that does not answer: bounded by --stop-timeout —
// the final checkpoint is given up, the engine stopped, and the worker closes; nothing hangs.
import { describe, expect, it } from 'vitest';
import { scriptedReply } from './testing/scripted-replies';
import { http, startFakeWorker } from './testing/workers';

describe('worker shutdown with a busy engine', () => {
  it('finishes within the stop timeout when the engine never answers the checkpoint', async () => {
    const t = await startFakeWorker({ stopTimeoutS: 0.5 }, { engine: { reply: scriptedReply, hang: ['save'] } });
    const t0 = Date.now();
    await t.worker.shutdown('SIGTERM');
    const ms = Date.now() - t0;
    expect(ms).toBeLessThan(10_000);
    expect(t.logs.join('\n')).toMatch(/did not finish within 0.5 s/);
    expect(t.engines.at(-1)!.alive).toBe(false);
    await expect(http(t.worker.url, 'GET', '/health')).rejects.toThrow();
    await t.stop();
  });
});
