import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { awaitPeers, clientIndex, markGroupDone, pairedSyncFromEnv } from './paired-sync';

describe('paired lock-step', () => {
  it('reads its folder and peer count from the environment, or is off', () => {
    expect(pairedSyncFromEnv({})).toBeNull();
    expect(pairedSyncFromEnv({ AGENTJET_PAIRED_SYNC: '/x', AGENTJET_PAIRED_PEERS: '0' })).toBeNull();
    expect(pairedSyncFromEnv({ AGENTJET_PAIRED_SYNC: '/x', AGENTJET_PAIRED_PEERS: '6' })).toEqual({
      dir: '/x',
      peers: 6,
      timeoutMs: 60_000,
    });
    expect(clientIndex('train-python-12')).toBe(12);
    expect(clientIndex('solo')).toBe(0);
  });

  it('releases a group when every peer of the same index has finished it, and only then', async () => {
    const s = { dir: mkdtempSync(join(tmpdir(), 'paired-sync-')), peers: 2, timeoutMs: 2_000 };
    markGroupDone(s, 'train-openai-0', 0);
    markGroupDone(s, 'train-python-1', 0); // another index: not a peer
    let released = false;
    const waiting = awaitPeers(s, 'train-openai-0', 0, 5).then((ok) => (released = ok));
    await new Promise((r) => setTimeout(r, 50));
    expect(released).toBe(false);
    markGroupDone(s, 'train-python-0', 0);
    await waiting;
    expect(released).toBe(true);
  });

  it('gives up after its timeout when a peer never finishes', async () => {
    const s = { dir: mkdtempSync(join(tmpdir(), 'paired-sync-')), peers: 3, timeoutMs: 60 };
    markGroupDone(s, 'train-openai-0', 4);
    expect(await awaitPeers(s, 'train-openai-0', 4, 5)).toBe(false);
  });

  it("is the same protocol as the Python client: each side sees the other's marks", () => {
    const s = { dir: mkdtempSync(join(tmpdir(), 'paired-sync-')), peers: 2, timeoutMs: 1_000 };
    markGroupDone(s, 'train-openai-1', 3);
    const code = [
      'import client',
      `s = client.PairedSync(${JSON.stringify(s.dir)}, 2, 0.2)`,
      'before = s.await_peers("train-python-1", 3)',
      's.mark_done("train-python-1", 3)',
      'print(before, s.await_peers("train-python-1", 3))',
    ].join('; ');
    const out = execFileSync(process.env['PYTHON'] ?? 'python3', ['-c', code], {
      cwd: join(import.meta.dirname, 'calculator-agent'),
      encoding: 'utf8',
    });
    expect(out.trim()).toBe('False True');
    expect(readdirSync(join(s.dir, '1', '3')).sort()).toEqual(['train-openai-1', 'train-python-1']);
  });
});
