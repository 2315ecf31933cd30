// The shutdown path of `agentjet worker` / `agentjet ui` as real processes: SIGTERM runs the
// shutdown and exits 0; a process whose parent exits (as under npx, which does not pass SIGTERM
// on) runs the same shutdown by itself; AGENTJET_WATCH_PARENT=0 keeps it running.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processAlive } from '../node/runner/process-group';
import { shouldWatchParent } from './signals';

const SIGNALS_TS = join(import.meta.dirname, 'signals.ts');
// A long-running command in miniature: its shutdown writes which signal stopped it.
const FIXTURE = `
import { writeFileSync } from 'node:fs';
import { exitOnSignals } from ${JSON.stringify(SIGNALS_TS)};
setInterval(() => undefined, 1000); // what a server's socket does: keeps the process running
void exitOnSignals(async (signal) => { await new Promise((r) => setTimeout(r, 50)); writeFileSync(process.env.MARKER, signal); }, () => undefined, { parentPollMs: 100 });
console.log(process.pid); // ready: the handlers are in place
`;
const nodeArgs = ['--import', 'tsx', '--input-type=module', '-e', FIXTURE];
const shQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

const dirs: string[] = [];
const pids: number[] = [];
afterEach(() => {
  for (const pid of pids.splice(0)) if (processAlive(pid)) process.kill(pid, 'SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function marker(): string {
  const d = mkdtempSync(join(tmpdir(), 'aj-signals-'));
  dirs.push(d);
  return join(d, 'stopped-by');
}

async function waitFor(what: string, ok: () => boolean, timeoutMs = 20_000): Promise<void> {
  const t0 = Date.now();
  while (!ok()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts the fixture under `sh -c '…; true'` (sh stays its parent); resolves with sh and the fixture's pid. */
function underShell(env: NodeJS.ProcessEnv): Promise<{ sh: ReturnType<typeof spawn>; pid: number }> {
  const cmd = `${[process.execPath, ...nodeArgs].map(shQuote).join(' ')}; true`;
  const sh = spawn('/bin/sh', ['-c', cmd], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    sh.stdout!.once('data', (d: Buffer) => {
      const pid = Number(d.toString().trim());
      pids.push(pid);
      resolve({ sh, pid });
    });
    sh.once('exit', (code) => reject(new Error(`sh exited early (${code})`)));
  });
}

describe.skipIf(process.platform === 'win32')('exitOnSignals', () => {
  it('runs the shutdown on SIGTERM and exits 0', async () => {
    const file = marker();
    const child = spawn(process.execPath, nodeArgs, {
      env: { ...process.env, MARKER: file, AGENTJET_WATCH_PARENT: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise((r) => child.stdout.once('data', r));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('SIGTERM');
  });

  it('runs the same shutdown when its parent exits without signalling it (npx, npm run)', async () => {
    const file = marker();
    const { sh, pid } = await underShell({ ...process.env, MARKER: file });
    sh.kill('SIGKILL'); // the parent dies; the command is re-parented and gets no signal
    await waitFor('the orphaned command to shut down', () => existsSync(file) && !processAlive(pid));
    expect(readFileSync(file, 'utf8')).toBe('parent exited');
  });

  it('keeps running after its parent exits with AGENTJET_WATCH_PARENT=0', async () => {
    const file = marker();
    const { sh, pid } = await underShell({ ...process.env, MARKER: file, AGENTJET_WATCH_PARENT: '0' });
    sh.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 800));
    expect(processAlive(pid)).toBe(true);
    expect(existsSync(file)).toBe(false);
  });

  it('decides from the environment and the parent pid', () => {
    expect(shouldWatchParent({}, 1234)).toBe(true);
    expect(shouldWatchParent({}, 1)).toBe(false);
    expect(shouldWatchParent({ AGENTJET_PARENT_PID: '99' }, 1234)).toBe(false);
    expect(shouldWatchParent({ AGENTJET_WATCH_PARENT: '0' }, 1234)).toBe(false);
    expect(shouldWatchParent({ AGENTJET_WATCH_PARENT: '1' }, 1)).toBe(true);
  });
});
