// The replica router's admission without Python: real EngineHosts and Admission gates over fake
// engines (named as fakes; their weight sync moves a version, not tensors), a real WeightSync. A call
// with no routable replica waits — counted as held — and is answered on the replica a later sync
// makes routable; it is refused with a 503 and an event when none becomes routable in time, and a
// cancelled call lets go at once. Synchronous mode keeps a stale replica out of rotation.
import { afterEach, describe, expect, it } from 'vitest';
import { SwarmError } from '../../errors';
import { Admission, AdmissionCancelledError, type AdmissionRequest } from '../admission';
import { EngineHost } from '../engine-host';
import { encode, fakeEngineFactory } from '../../testing/fake-engine';
import { testReplica } from '../../testing/replicas';
import { ReplicaRouter, type Replica } from './replica-router';
import { WeightSync } from './weight-sync';

const hosts: EngineHost[] = [];

async function engineHost(): Promise<EngineHost> {
  const { factory } = fakeEngineFactory();
  const host = new EngineHost({ factory, load: { path: '/fake' }, checkpoint: () => null });
  await host.start();
  hosts.push(host);
  return host;
}

async function setup(o: { replicas: number; admitTimeoutMs?: number }) {
  const trainer = await engineHost();
  const replicas: Replica[] = [];
  for (let index = 0; index < o.replicas; index++) {
    replicas.push(testReplica(index, await engineHost()));
  }
  const events: string[] = [];
  const sync = new WeightSync({ trainer, timeoutS: 5, inflight: 'finish', log: () => undefined });
  const router = new ReplicaRouter({
    replicas,
    trainer,
    trainerGate: new Admission(trainer),
    trainerServes: false,
    sync,
    async: false,
    inflight: 'finish',
    stalenessBound: () => 1,
    admitTimeoutMs: o.admitTimeoutMs ?? 10_000,
    event: (level, message) => void events.push(`${level}: ${message}`),
  });
  return { trainer, replicas, router, events };
}

const request = (affinity?: string): AdmissionRequest => ({
  promptIds: encode('<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n'),
  maxTokens: 8,
  temperature: 1,
  topP: 1,
  seed: 1,
  ...(affinity ? { affinity } : {}),
});

afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.dispose()));
});

describe('ReplicaRouter admission', () => {
  it('holds a call until a sync makes a replica routable, then answers it there', async () => {
    const { router, replicas } = await setup({ replicas: 2 });
    let settled = false;
    const call = router.generate(request('task-1')).finally(() => void (settled = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false);
    expect(router.pending).toBe(1);
    expect(router.rollout().heldByStaleness).toBe(1);
    const synced = await router.syncAll();
    expect(synced.synced).toEqual([0, 1]);
    const out = await call;
    expect(out.tokenIds.length).toBeGreaterThan(0);
    expect(replicas.reduce((n, r) => n + r.calls, 0)).toBe(1);
    expect(router.pending).toBe(0);
    expect(router.rollout().stalenessTimeouts).toBe(0);
  });

  it('keeps a replica behind the trainer out of rotation in synchronous mode', async () => {
    const { router, replicas, trainer } = await setup({ replicas: 1, admitTimeoutMs: 60 });
    await router.syncAll();
    await router.generate(request());
    expect(replicas[0]!.calls).toBe(1);
    const sample = { tokenIds: [11, 12, 13], lossMask: [0, 1, 1] as (0 | 1)[], advantages: 1, rolloutLogprobs: [] };
    await router.pause(); // an update begins: the gates close
    await trainer.call('train_step', { samples: [sample], hyper: { lr: 1e-4 } });
    expect(trainer.weightVersion).toBe(1);
    const stale = router.generate(request());
    await new Promise((r) => setTimeout(r, 10));
    router.resume(); // the update ended: the sync brings the replica to version 1 and wakes the call
    await stale;
    expect(replicas[0]!.version).toBe(1);
    expect(replicas[0]!.calls).toBe(2);
  });

  it('refuses a call with a 503 and an event when no replica becomes routable in time', async () => {
    const { router, events } = await setup({ replicas: 1, admitTimeoutMs: 50 });
    const err = await router.generate(request()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SwarmError);
    expect(err).toMatchObject({ status: 503, code: 'replicas_unavailable' });
    expect(router.rollout().stalenessTimeouts).toBe(1);
    expect(router.pending).toBe(0);
    expect(events.some((e) => e.startsWith('error: admission: no rollout replica'))).toBe(true);
  });

  it('lets a cancelled call go at once', async () => {
    const { router } = await setup({ replicas: 1 });
    const gone = new AbortController();
    const call = router.generate(request(), { signal: gone.signal }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 10));
    gone.abort();
    expect(await call).toBeInstanceOf(AdmissionCancelledError);
    expect(router.pending).toBe(0);
    expect(router.rollout().stalenessTimeouts).toBe(0);
  });
});
