// The run folder is private (0700) and everything the worker writes into it is 0600; explicit
// tokens are checked however they are passed.
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scriptedReply } from '../testing/scripted-replies';
import { http, startFakeWorker, tempDir, TEST_TOKENS, type TestWorker } from '../testing/workers';
import { preparePrivateDir, resolveTokens, runFiles, writeFileAtomic } from './run-dir';

const mode = (p: string): number => statSync(p).mode & 0o777;
const running: TestWorker[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.stop()));
});

describe('run folder', () => {
  it('makes the run folder 0700 (an existing one too) and writes files 0600', () => {
    const dir = join(tempDir('aj-rundir-'), 'run');
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    preparePrivateDir(dir);
    expect(mode(dir)).toBe(0o700);
    writeFileAtomic(join(dir, 'x.json'), '{}');
    expect(mode(join(dir, 'x.json'))).toBe(0o600);
  });

  it('a worker leaves nothing in its run folder readable by others', async () => {
    const t = await startFakeWorker({ training: { strategy: 'C1', batch: 100 } }, { engine: { reply: scriptedReply } });
    running.push(t);
    await http(t.worker.url, 'POST', '/swarm/v1/control/checkpoint', { token: TEST_TOKENS.admin });
    const f = t.worker.files;
    expect(mode(f.dir)).toBe(0o700);
    for (const p of [f.config, f.state, f.pool, f.secret, f.worker, f.counters]) expect(mode(p), p).toBe(0o600);
  });

  it('refuses explicit tokens that are short or equal, wherever they come from', () => {
    const files = runFiles(join(tempDir('aj-tokens-'), 'run'));
    expect(() => resolveTokens(files, { admin: 'same-token-0123456789', join: 'same-token-0123456789' })).toThrow(
      /must differ from the join token/,
    );
    expect(() => resolveTokens(files, { join: 'short' })).toThrow(/at least 16/);
    expect(resolveTokens(files, { admin: 'admin-token-0123456789', join: 'join-token-0123456789' }).file).toBeNull();
  });
});
