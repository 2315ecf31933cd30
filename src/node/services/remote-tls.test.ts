// Attaching the workbench to an https worker (a real worker with the fake engine, --tls
// self-signed): the certificate is trusted on first use and shown in the attach result, pinned in
// <data>/known-workers.json, events arrive over WSS through the pin; a worker presenting another
// certificate at the same address is refused with both fingerprints named, until the user gives
// the new fingerprint; and a pinned connection never sends a request to a peer with another
// certificate (the admin token stays home).
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { scriptedReply } from '../../../gpu-worker/src/testing/scripted-replies';
import { startFakeWorker, TEST_TOKENS, type TestWorker } from '../../../gpu-worker/src/testing/workers';
import { SwarmClient } from '../../sdk/index';
import { fetchTrusting } from '../../sdk/tls';
import { WorkbenchError } from '../../shared/workbench-api';
import { PinnedAgent } from '../pinned-tls';
import { createWorkbench, type Workbench } from '../workbench';
import { pinDecision } from './known-certificates';
import { WorkerClient } from '../worker-client';

let dataDir: string;
let wb: Workbench;
const workers: TestWorker[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'aj-wb-tls-'));
  wb = await createWorkbench({ dataDir, log: () => undefined });
});
afterEach(async () => {
  await wb.backend.disconnect({});
});
afterAll(async () => {
  await wb.dispose();
  await Promise.all(workers.map((w) => w.stop()));
  rmSync(dataDir, { recursive: true, force: true });
});

async function errorOf(p: Promise<unknown>): Promise<WorkbenchError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof WorkbenchError)) throw new Error(`expected a WorkbenchError, got ${String(err)}`);
  return err;
}

async function httpsWorker(port = 0): Promise<TestWorker> {
  const t = await startFakeWorker(
    { tls: 'self-signed', port, training: { strategy: 'C1', batch: 100 } },
    { engine: { reply: scriptedReply } },
  );
  workers.push(t);
  return t;
}

describe('pinDecision', () => {
  const pin = { fingerprint256: 'AA', firstSeen: 0, lastSeen: 0 };
  it('trusts on first use, keeps a matching pin, refuses a changed one naming both', () => {
    expect(pinDecision('r', 'AA', null, null)).toEqual({
      ok: true,
      fingerprint256: 'AA',
      firstUse: true,
      replaced: null,
    });
    expect(pinDecision('r', 'AA', pin, null)).toMatchObject({ ok: true, firstUse: false });
    const changed = pinDecision('https://gpu:1', 'BB', pin, null);
    expect(changed).toMatchObject({ ok: false, code: 'certificate_changed' });
    expect(!changed.ok && changed.message).toMatch(
      /certificate of https:\/\/gpu:1 changed: trusted SHA-256 AA .*now presented BB/,
    );
  });
  it('a fingerprint the user gave must match, and replaces the pin', () => {
    expect(pinDecision('r', 'BB', pin, 'BB')).toEqual({
      ok: true,
      fingerprint256: 'BB',
      firstUse: false,
      replaced: 'AA',
    });
    expect(pinDecision('r', 'BB', null, 'CC')).toMatchObject({ ok: false, code: 'certificate_mismatch' });
  });
});

describe('attaching to an https worker', () => {
  it('trusts on first use, shows and pins the fingerprint, follows events over WSS; a changed certificate is refused', async () => {
    const first = await httpsWorker();
    const url = first.worker.url;
    const fp1 = first.worker.tls!.fingerprint256;
    const session = await wb.backend.connectRemote({ url, adminToken: TEST_TOKENS.admin, clients: 0 });
    expect(session.transport).toEqual({ remoteUrl: url, sshHost: null, fingerprint256: fp1, trustedOnFirstUse: true });
    expect(session.model).toBe('fake-model');
    const known = join(dataDir, 'known-workers.json');
    expect(statSync(known).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(known, 'utf8'))).toMatchObject({ workers: { [url]: { fingerprint256: fp1 } } });

    // Events arrive over WSS through the pinned agent: an episode played with the SDK shows up.
    const client = new SwarmClient({ url, joinToken: TEST_TOKENS.join, ca: first.worker.tls!.cert });
    const claim = await client.claim({ taskId: 'tls-task' });
    const chat = await fetchTrusting(first.worker.tls!.cert)(`${claim.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${claim.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(chat.status).toBe(200);
    await client.end(claim.episodeId, { taskId: 'tls-task', reward: 1 });
    const runId = session.runId;
    const t0 = Date.now();
    for (;;) {
      const page = await wb.backend.episodes({ runId, filter: {}, offset: 0, limit: 10, order: 'oldest' });
      if (page.rows.some((e) => e.episodeId === claim.episodeId && e.status === 'ended')) break;
      if (Date.now() - t0 > 10_000) throw new Error('the ended episode did not arrive through the events stream');
      await new Promise((r) => setTimeout(r, 50));
    }
    await wb.backend.disconnect({});
    const again = await wb.backend.connectRemote({ url, adminToken: TEST_TOKENS.admin, clients: 0 });
    expect(again.transport?.trustedOnFirstUse).toBe(false);
    await wb.backend.disconnect({});

    // Another worker at the same address with a new certificate: refused, both fingerprints named.
    const port = first.worker.port;
    await first.stop();
    workers.splice(workers.indexOf(first), 1);
    const second = await httpsWorker(port);
    const fp2 = second.worker.tls!.fingerprint256;
    expect(fp2).not.toBe(fp1);
    const changed = await errorOf(wb.backend.connectRemote({ url, adminToken: TEST_TOKENS.admin, clients: 0 }));
    expect(changed.code).toBe('certificate_changed');
    expect(changed.message).toContain(`trusted SHA-256 ${fp1}`);
    expect(changed.message).toContain(`now presented ${fp2}`);
    expect(await wb.backend.session({})).toBeNull();

    // A wrong fingerprint given is refused; the right one is trusted and replaces the pin.
    const wrong = await errorOf(
      wb.backend.connectRemote({ url, adminToken: TEST_TOKENS.admin, clients: 0, fingerprint: fp1 }),
    );
    expect(wrong.code).toBe('certificate_mismatch');
    const given = fp2.replace(/:/g, '').toLowerCase();
    const accepted = await wb.backend.connectRemote({
      url,
      adminToken: TEST_TOKENS.admin,
      clients: 0,
      fingerprint: given,
    });
    expect(accepted.transport).toMatchObject({ fingerprint256: fp2, trustedOnFirstUse: false });
    expect(JSON.parse(readFileSync(known, 'utf8'))).toMatchObject({ workers: { [url]: { fingerprint256: fp2 } } });
  });

  it("local clients of an https remote trust its certificate (the runner's AGENTJET_CA_FILE / NODE_EXTRA_CA_CERTS)", async () => {
    const t = await httpsWorker();
    const folder = mkdtempSync(join(tmpdir(), 'aj-wb-tls-folder-'));
    try {
      writeFileSync(
        join(folder, 'client.ts'),
        [
          'fetch(`${process.env.AGENTJET_SERVER_URL}/health`)',
          '  .then((r) => r.json())',
          '  .then((h) => console.log(`trusted ${h.tls.fingerprint256} via ${process.env.AGENTJET_CA_FILE ? "ca file" : "?"}`))',
          '  .catch((e) => console.log(`refused ${e.cause?.code ?? e.message}`));',
          'setInterval(() => undefined, 1000);',
          '',
        ].join('\n'),
      );
      await wb.backend.connectRemote({
        url: t.worker.url,
        adminToken: TEST_TOKENS.admin,
        joinToken: TEST_TOKENS.join,
        example: folder,
        clients: 1,
      });
      const want = `trusted ${t.worker.tls!.fingerprint256} via ca file`;
      const t0 = Date.now();
      for (;;) {
        const { lines } = await wb.backend.logs({ source: { kind: 'client', clientId: 'wb-0' }, limit: 100 });
        if (lines.some((l) => l.line === want)) break;
        if (Date.now() - t0 > 20_000) throw new Error(`the client did not print "${want}": ${JSON.stringify(lines)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await wb.backend.disconnect({});
      rmSync(folder, { recursive: true, force: true });
    }
  }, 40_000);

  it('a pinned connection sends nothing to a peer with another certificate', async () => {
    const t = await httpsWorker();
    const requests: string[] = [];
    const impostor = createServer({ cert: t.worker.tls!.cert, key: t.worker.tls!.key }, (req, res) => {
      requests.push(String(req.headers.authorization));
      res.end('{}');
    });
    await new Promise<void>((r) => impostor.listen(0, '127.0.0.1', r));
    const url = `https://127.0.0.1:${(impostor.address() as AddressInfo).port}`;
    try {
      const other = await httpsWorker();
      const pinnedToOther = new PinnedAgent(other.worker.tls!.fingerprint256);
      const err = await errorOf(
        new WorkerClient(url, TEST_TOKENS.admin, { timeoutMs: 5000, agent: pinnedToOther }).status(),
      );
      expect(err.code).toBe('certificate_changed');
      expect(err.message).toContain(`presented certificate SHA-256 ${t.worker.tls!.fingerprint256}`);
      expect(requests).toEqual([]);
      const pinnedRight = new PinnedAgent(t.worker.tls!.fingerprint256);
      await new WorkerClient(url, TEST_TOKENS.admin, { timeoutMs: 5000, agent: pinnedRight })
        .health()
        .catch(() => undefined);
      expect(requests).toHaveLength(1);
      pinnedToOther.destroy();
      pinnedRight.destroy();
    } finally {
      await new Promise((r) => impostor.close(r));
    }
  });

  it('an https URL to a plain-HTTP worker names the likely mistake', async () => {
    const plain = await startFakeWorker({}, { engine: { reply: scriptedReply } });
    workers.push(plain);
    const err = await errorOf(
      wb.backend.connectRemote({
        url: plain.worker.url.replace('http:', 'https:'),
        adminToken: TEST_TOKENS.admin,
        clients: 0,
      }),
    );
    expect(err.code).toBe('unreachable');
    expect(err.message).toMatch(/no TLS handshake \(does the worker serve plain HTTP\? then use http:\/\/\)/);
  });
});
