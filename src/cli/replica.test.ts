// `agentjet replica` against an https worker (self-signed, fake engine): the pinned certificate is the
// trust decision, as for the workbench — the right pin attaches (and the worker then refuses the replica
// for good: the fake engine program's vocabulary is not the fake trainer's, which stops it with the
// worker's reason), a wrong pin or no trust at all stops the replica without sending its token.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplicaHost, type ReplicaHost } from '../../gpu-worker/src/engine/replicas/replica-host';
import { fakeEnginePython } from '../../gpu-worker/src/testing/fake-engine-program';
import { startFakeWorker, TEST_TOKENS, type TestWorker } from '../../gpu-worker/src/testing/workers';
import { attachToken, ReplicaOptionsSchema, trust } from './replica';

describe('agentjet replica: options', () => {
  it('reads its flags and refuses what cannot work', () => {
    expect(ReplicaOptionsSchema.parse({ worker: 'https://gpu-box:8321', replicas: '4' })).toMatchObject({
      replicas: 4,
      model: 'builtin',
    });
    expect(() => ReplicaOptionsSchema.parse({ worker: 'gpu-box:8321' })).toThrow(/the worker URL/);
    expect(() => ReplicaOptionsSchema.parse({ worker: 'http://h:1', devices: 'a,b' })).toThrow(/GPU indices/);
    expect(() => ReplicaOptionsSchema.parse({ worker: 'http://h:1', tlsFingerprint: 'AB' })).toThrow(/SHA-256/);
    expect(() => ReplicaOptionsSchema.parse({ worker: 'http://h:1', engineProcs: '2' })).toThrow();
  });

  it('attaches with the replica token (flag, else environment) before the admin token', () => {
    const env = { AGENTJET_ADMIN_TOKEN: 'env-admin', AGENTJET_REPLICA_TOKEN: 'env-replica' };
    expect(attachToken({}, env)).toEqual({ token: 'env-replica', given: 'replica' });
    expect(attachToken({}, { ...env, AGENTJET_REPLICA_TOKEN: '' })).toEqual({ token: 'env-admin', given: 'admin' });
    expect(attachToken({ replicaToken: 'flag-replica' }, env)).toEqual({ token: 'flag-replica', given: 'replica' });
    expect(attachToken({ token: 'flag-admin' }, env)).toEqual({ token: 'flag-admin', given: 'admin' });
    expect(() => attachToken({ token: 'a', replicaToken: 'r' }, {})).toThrow(/not both/);
    expect(() => attachToken({}, {})).toThrow(/give the worker's replica token: AGENTJET_REPLICA_TOKEN/);
    expect(ReplicaOptionsSchema.parse({ worker: 'http://h:1', replicaToken: 'r' })).toMatchObject({
      replicaToken: 'r',
    });
  });
});

describe('agentjet replica and an https worker', () => {
  let t: TestWorker;
  let dir: string;
  const hosts: ReplicaHost[] = [];
  const host = (tlsFingerprint?: string): ReplicaHost => {
    const h = startReplicaHost({
      worker: t.worker.url,
      token: TEST_TOKENS.admin,
      name: 'tlshost',
      replicas: 1,
      threads: 1,
      model: dir, // no identity files, like the fake worker's model
      python: fakeEnginePython(dir),
      agent: tlsFingerprint === undefined ? undefined : trust({ tlsFingerprint }),
      log: () => undefined,
    });
    hosts.push(h);
    return h;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'aj-replica-tls-'));
    t = await startFakeWorker({ tls: 'self-signed', remoteReplicas: true });
  });
  afterAll(async () => {
    await Promise.all(hosts.map((h) => h.stop()));
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('attaches through the pinned certificate; the worker then refuses an engine of another model', async () => {
    const h = host(t.worker.tls!.fingerprint256);
    await h.done;
    expect(h.links[0]!.attaches).toBe(1);
    expect(h.links[0]!.stopped).toMatch(/the worker ended it \(4009: the replica's engine loaded another model/);
    expect(t.logs.join('\n')).toMatch(/rollout replica tlshost\/0 refused: .*vocabSize 100 ≠ 70000/);
  });

  it('stops before sending anything to a certificate it does not trust', async () => {
    const wrong = host('AB:'.repeat(31) + 'AB');
    const none = host();
    await Promise.all([wrong.done, none.done]);
    for (const h of [wrong, none]) {
      expect(h.links[0]!.attaches).toBe(0);
      expect(h.links[0]!.stopped).toMatch(/certificate is not trusted/);
    }
  });
});
