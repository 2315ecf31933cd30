// The SDK and the official openai client against a real worker over HTTPS (`agentjet worker --tls
// self-signed`, the engine with the built-in model): the certificate file and fingerprint the worker
// prints, a SwarmClient trusting it (option and AGENTJET_CA_FILE), the openai client's chat call
// through fetchTrusting, a child process trusting it through NODE_EXTRA_CA_CERTS (what the client
// runner sets), and a client that does not trust it refused by its own TLS check.
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SwarmClient, SwarmError } from './index';
import { fetchTrusting } from './tls';
import { startWorkerProcess, TOKENS, type WorkerProcess } from './testing/worker-process';

let w: WorkerProcess;
let certFile: string;
let fingerprint: string;
beforeAll(async () => {
  w = await startWorkerProcess(['--tls', 'self-signed', '--strategy', 'C1', '--batch', '1000', '--max-tokens', '8']);
  const m = /TLS: self-signed certificate (\S+) · SHA-256 fingerprint (\S+)/.exec(w.output());
  if (!m) throw new Error(`no TLS line in the worker's output:\n${w.output().slice(-2000)}`);
  [certFile, fingerprint] = [m[1]!, m[2]!];
}, 90_000);
afterAll(async () => {
  await w?.stop();
});

const retry = { initialDelayMs: 50, maxDelayMs: 200, deadlineMs: 10_000 };

describe('an https worker', () => {
  it('prints the certificate it made and its fingerprint', () => {
    expect(w.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(new X509Certificate(readFileSync(certFile)).fingerprint256).toBe(fingerprint);
  });

  it('plays an episode: SwarmClient with the certificate as CA, the openai client through fetchTrusting', async () => {
    const ca = readFileSync(certFile);
    const client = new SwarmClient({ url: w.url, joinToken: TOKENS.join, clientId: 'tls-sdk', ca, retry });
    const claim = await client.claim({ taskId: 'tls-1' });
    expect(claim.baseUrl).toBe(`${w.url}/v1`);
    const openai = new OpenAI({
      baseURL: claim.baseUrl,
      apiKey: claim.apiKey,
      fetch: fetchTrusting(ca),
      maxRetries: 0,
    });
    const out = await openai.chat.completions.create({
      model: claim.model,
      messages: [{ role: 'user', content: 'What is 2+3?' }],
      max_tokens: 8,
    });
    expect(out.choices[0]?.message.role).toBe('assistant');
    expect(out.usage?.completion_tokens).toBeGreaterThan(0);
    const end = await client.end(claim.episodeId, { taskId: 'tls-1', reward: 1 });
    expect(end.episodeId).toBe(claim.episodeId);

    const fromEnv = SwarmClient.fromEnv({
      AGENTJET_SERVER_URL: w.url,
      AGENTJET_JOIN_TOKEN: TOKENS.join,
      AGENTJET_CA_FILE: certFile,
    });
    expect((await fromEnv.status()).model).toBe(claim.model);
  });

  it('a child process trusts it through NODE_EXTRA_CA_CERTS (what the workbench sets for its clients)', async () => {
    const script = `fetch(process.argv[1] + '/health').then((r) => r.json()).then((h) => console.log(h.tls.fingerprint256))`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', script, w.url], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: certFile },
    });
    expect(stdout.trim()).toBe(fingerprint);
  });

  it('a client without the certificate is refused by its own TLS check', async () => {
    const client = new SwarmClient({ url: w.url, joinToken: TOKENS.join, retry: { ...retry, deadlineMs: 0 } });
    const err = await client.status().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SwarmError);
    expect((err as SwarmError).message).toMatch(/self[- ]signed|certificate/i);
  });
});
