// The preloaded parent watchdog: a client whose runner dies without stopping it gets SIGTERM
// (so the SDK can abort its episodes) and exits, instead of running on as an orphan.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PARENT_WATCHDOG } from './client-process';
import { isAlive, waitFor } from './test-support';

const HARNESS = `
const { spawn } = require('node:child_process');
const client = spawn(process.execPath, ['--import', process.argv[1], '-e',
  "process.on('SIGTERM', () => process.exit(0)); setInterval(() => undefined, 1000)"],
  { env: { ...process.env, AGENTJET_PARENT_PID: String(process.pid) }, detached: true, stdio: 'ignore' });
client.on('spawn', () => console.log(client.pid));
setInterval(() => undefined, 1000);
`;

describe('parent watchdog', () => {
  it('ends a client within about a second of its runner being killed', async () => {
    const runner = spawn(process.execPath, ['-e', HARNESS, PARENT_WATCHDOG], { stdio: ['ignore', 'pipe', 'inherit'] });
    const clientPid = await new Promise<number>((resolve) =>
      runner.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))),
    );
    expect(isAlive(clientPid)).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(isAlive(clientPid)).toBe(true); // the watchdog leaves a client with a live parent alone
    const killedAt = Date.now();
    runner.kill('SIGKILL');
    await waitFor('the orphaned client to exit', () => !isAlive(clientPid), 4000);
    console.log(`[runner test] orphaned client exited ${Date.now() - killedAt} ms after its runner was killed`);
  });
});
