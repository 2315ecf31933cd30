// The worker's transport: a non-loopback plain-HTTP bind is refused with the risk named; --tls
// self-signed makes a 0600 key and a certificate valid for loopback in the run folder, kept across
// restarts; a real worker then serves HTTPS and the events WebSocket as WSS, its fingerprint in
// /health, and a client without the certificate is refused by its own TLS check.
import { X509Certificate } from 'node:crypto';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { get } from 'node:https';
import { HealthSchema } from '../../../src/shared/swarm-protocol';
import { scriptedReply } from '../testing/scripted-replies';
import { startFakeWorker, tempDir, TEST_TOKENS, type TestWorker } from '../testing/workers';
import { certificateNames, insecureBindProblem, isLoopbackHost, loadTls } from './transport';

const workers: TestWorker[] = [];
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
});

/** GET `url` over HTTPS trusting `ca`: the JSON answer. */
function getJson(url: string, ca: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    get(url, { ca }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve(JSON.parse(text)));
    }).on('error', reject);
  });
}

const plain = { tls: 'off' as const, insecureHttp: false };

describe('binding', () => {
  it('knows loopback addresses', () => {
    for (const h of ['127.0.0.1', '127.3.2.1', '::1', '[::1]', 'localhost']) expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['0.0.0.0', '::', '10.0.0.7', 'gpu-box', '128.0.0.1']) expect(isLoopbackHost(h)).toBe(false);
  });

  it('refuses plain HTTP on a non-loopback address unless TLS or --insecure-http', () => {
    expect(insecureBindProblem({ ...plain, host: '127.0.0.1' })).toBeNull();
    const problem = insecureBindProblem({ ...plain, host: '0.0.0.0' });
    expect(problem).toMatch(/^--host 0\.0\.0\.0 would serve plain HTTP/);
    expect(problem).toMatch(/tokens, every episode key and every conversation would cross the network unencrypted/);
    expect(problem).toMatch(/--tls self-signed.*--tls-cert FILE --tls-key FILE.*--insecure-http true/);
    expect(insecureBindProblem({ ...plain, host: '0.0.0.0', insecureHttp: true })).toBeNull();
    expect(insecureBindProblem({ ...plain, host: '0.0.0.0', tls: 'self-signed' })).toBeNull();
    expect(insecureBindProblem({ ...plain, host: '10.0.0.7', tlsCert: 'c.pem', tlsKey: 'k.pem' })).toBeNull();
  });

  it('a worker started on 0.0.0.0 without TLS refuses to start, naming the risk', async () => {
    await expect(startFakeWorker({ host: '0.0.0.0' })).rejects.toThrow(/would serve plain HTTP.*--insecure-http true/);
  });

  it('certificate names: loopback, the machine, the bind host and the public URL host', () => {
    expect(certificateNames({ host: '0.0.0.0' }, 'gpu-box')).toEqual(['localhost', '127.0.0.1', '::1', 'gpu-box']);
    expect(certificateNames({ host: '10.0.0.7', publicUrl: 'https://gpu.lab.example:8321' }, 'bad name!')).toEqual([
      'localhost',
      '127.0.0.1',
      '::1',
      '10.0.0.7',
      'gpu.lab.example',
    ]);
  });
});

describe('certificates', () => {
  it('makes a self-signed certificate once (key 0600), valid for loopback, and reuses it', () => {
    const dir = tempDir('aj-tls-');
    const config = { ...plain, host: '127.0.0.1', tls: 'self-signed' as const };
    const first = loadTls(config, dir)!;
    expect(first.selfSigned).toBe(true);
    expect(statSync(first.keyFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'tls')).mode & 0o777).toBe(0o700);
    const x = new X509Certificate(first.cert);
    expect(x.verify(x.publicKey)).toBe(true);
    expect(x.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x.checkHost('localhost')).toBe('localhost');
    expect(first.fingerprint256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(loadTls(config, dir)!.fingerprint256).toBe(first.fingerprint256);
  });

  it('serves given files, and names what is wrong with them', () => {
    const dir = tempDir('aj-tls-files-');
    const made = loadTls({ ...plain, host: '127.0.0.1', tls: 'self-signed' }, dir)!;
    const given = loadTls({ ...plain, host: '127.0.0.1', tlsCert: made.certFile, tlsKey: made.keyFile }, dir)!;
    expect(given).toMatchObject({ selfSigned: false, fingerprint256: made.fingerprint256 });
    expect(() => loadTls({ ...plain, host: '127.0.0.1', tlsCert: made.certFile }, dir)).toThrow(/go together/);
    expect(() => loadTls({ ...plain, host: '127.0.0.1', tls: 'self-signed', tlsCert: 'a', tlsKey: 'b' }, dir)).toThrow(
      /contradicts/,
    );
    const junk = join(dir, 'junk.pem');
    writeFileSync(junk, 'not a certificate');
    expect(() => loadTls({ ...plain, host: '127.0.0.1', tlsCert: junk, tlsKey: made.keyFile }, dir)).toThrow(
      /not a PEM certificate/,
    );
    expect(() => loadTls({ ...plain, host: '127.0.0.1', tlsCert: join(dir, 'none.pem'), tlsKey: junk }, dir)).toThrow(
      /--tls-cert .*none\.pem/,
    );
  });
});

describe('a worker over HTTPS', () => {
  it('serves HTTPS and WSS with its self-signed certificate, its fingerprint in /health', async () => {
    const t = await startFakeWorker({ tls: 'self-signed', host: '0.0.0.0' }, { engine: { reply: scriptedReply } });
    workers.push(t);
    const { worker } = t;
    expect(worker.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(t.logs.join('\n')).toContain(`TLS certificate SHA-256 ${worker.tls!.fingerprint256}`);
    const health = HealthSchema.parse(await getJson(`${worker.url}/health`, worker.tls!.cert));
    expect(health.tls).toEqual({ fingerprint256: worker.tls!.fingerprint256 });
    // Without the certificate a client's own TLS check refuses the self-signed worker.
    const refused = await fetch(`${worker.url}/health`).then(
      () => 'answered',
      (err: unknown) => (err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err)),
    );
    expect(refused).toMatch(/self[- ]signed/i);
    // The events stream is WSS with the same certificate.
    const hello = await new Promise<unknown>((resolve, reject) => {
      const ws = new WebSocket(`${worker.url.replace(/^https/, 'wss')}/swarm/v1/events`, {
        headers: { authorization: `Bearer ${TEST_TOKENS.admin}` },
        ca: worker.tls!.cert,
      });
      ws.once('message', (d: WebSocket.RawData) => {
        ws.close();
        resolve(JSON.parse(d.toString()));
      });
      ws.once('error', reject);
    });
    expect(hello).toMatchObject({ type: 'hello' });
  });
});
