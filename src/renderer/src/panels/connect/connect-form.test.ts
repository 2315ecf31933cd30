import { describe, expect, it } from 'vitest';
import { buildLocalParams, buildRemoteParams, DEFAULT_LOCAL, DEFAULT_REMOTE } from './connect-form';

describe('buildLocalParams', () => {
  it('defaults give builtin + calculator-agent + 2 clients, no advanced fields', () => {
    expect(buildLocalParams(DEFAULT_LOCAL)).toEqual({
      ok: true,
      params: { model: 'builtin', example: 'calculator-agent', clients: 2 },
    });
  });
  it('passes advanced settings as numbers', () => {
    const r = buildLocalParams({
      ...DEFAULT_LOCAL,
      strategy: 'C2',
      batch: '8',
      groupSize: '4',
      lr: '1e-5',
      maxTokens: '256',
    });
    expect(r).toEqual({
      ok: true,
      params: {
        model: 'builtin',
        example: 'calculator-agent',
        clients: 2,
        strategy: 'C2',
        batch: 8,
        groupSize: 4,
        lr: 1e-5,
        maxTokens: 256,
      },
    });
  });
  it('passes the training setup (mode, LoRA, engine ranks) and names contradictions', () => {
    const r = buildLocalParams({ ...DEFAULT_LOCAL, loraR: '16', loraTargets: 'q_proj, v_proj', engineProcs: '2' });
    expect(r).toEqual({
      ok: true,
      params: {
        model: 'builtin',
        example: 'calculator-agent',
        clients: 2,
        loraR: 16,
        loraTargets: 'q_proj,v_proj',
        engineProcs: 2,
      },
    });
    expect(buildLocalParams({ ...DEFAULT_LOCAL, trainMode: 'full' })).toMatchObject({
      ok: true,
      params: { trainMode: 'full' },
    });
    expect(buildLocalParams({ ...DEFAULT_LOCAL, loraAlpha: '8' })).toEqual({
      ok: false,
      error: expect.stringMatching(/^LoRA rank: /),
    });
    expect(buildLocalParams({ ...DEFAULT_LOCAL, trainMode: 'full', loraR: '8' })).toEqual({
      ok: false,
      error: expect.stringMatching(/^Training mode: /),
    });
    expect(buildLocalParams({ ...DEFAULT_LOCAL, engineProcs: '0' })).toEqual({
      ok: false,
      error: expect.stringMatching(/^Engine ranks: /),
    });
  });
  it('names the bad field', () => {
    const r = buildLocalParams({ ...DEFAULT_LOCAL, clients: 'two' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^Clients: /);
    const r2 = buildLocalParams({ ...DEFAULT_LOCAL, batch: '1.5' });
    expect(!r2.ok && r2.error.startsWith('Batch: ')).toBe(true);
    const r3 = buildLocalParams({ ...DEFAULT_LOCAL, clients: '65' });
    expect(!r3.ok && r3.error.startsWith('Clients: ')).toBe(true);
  });
  it('an empty model means builtin', () => {
    const r = buildLocalParams({ ...DEFAULT_LOCAL, model: '  ' });
    expect(r.ok && r.params.model).toBe('builtin');
  });
});

describe('buildRemoteParams', () => {
  it('requires URL and admin token with a clear message', () => {
    expect(buildRemoteParams(DEFAULT_REMOTE)).toEqual({ ok: false, error: expect.stringMatching(/^Worker URL/) });
    expect(buildRemoteParams({ ...DEFAULT_REMOTE, url: 'http://x:1' })).toEqual({
      ok: false,
      error: expect.stringMatching(/^Admin token/),
    });
  });
  it('builds url + token, with optional join token/example/clients', () => {
    expect(buildRemoteParams({ ...DEFAULT_REMOTE, url: ' http://x:1 ', adminToken: 'a' })).toEqual({
      ok: true,
      params: { url: 'http://x:1', adminToken: 'a', clients: 0 },
    });
    expect(
      buildRemoteParams({
        ...DEFAULT_REMOTE,
        url: 'http://x:1',
        adminToken: 'a',
        joinToken: 'j',
        example: 'guess-number',
        clients: '3',
      }),
    ).toEqual({
      ok: true,
      params: { url: 'http://x:1', adminToken: 'a', joinToken: 'j', example: 'guess-number', clients: 3 },
    });
  });
  it('refuses local clients without a join token and example', () => {
    const r = buildRemoteParams({ ...DEFAULT_REMOTE, url: 'http://x:1', adminToken: 'a', clients: '2' });
    expect(!r.ok && r.error).toMatch(/join token and an example/);
  });
  it('passes an SSH host and an https certificate fingerprint, and names what is wrong with them', () => {
    const fp = 'ab'.repeat(32);
    expect(
      buildRemoteParams({
        ...DEFAULT_REMOTE,
        url: 'https://127.0.0.1:8321',
        adminToken: 'a',
        sshHost: 'gpu',
        fingerprint: fp,
      }),
    ).toEqual({
      ok: true,
      params: { url: 'https://127.0.0.1:8321', adminToken: 'a', clients: 0, sshHost: 'gpu', fingerprint: fp },
    });
    const bad = buildRemoteParams({ ...DEFAULT_REMOTE, url: 'https://x:1', adminToken: 'a', fingerprint: 'AB:CD' });
    expect(!bad.ok && bad.error).toMatch(/^Certificate fingerprint: a SHA-256 fingerprint/);
    const plain = buildRemoteParams({ ...DEFAULT_REMOTE, url: 'http://x:1', adminToken: 'a', fingerprint: fp });
    expect(!plain.ok && plain.error).toMatch(/only an https:\/\/ worker/);
    const dash = buildRemoteParams({
      ...DEFAULT_REMOTE,
      url: 'http://x:1',
      adminToken: 'a',
      sshHost: '-oProxyCommand=x',
    });
    expect(!dash.ok && dash.error).toMatch(/^SSH host:/);
  });
});
