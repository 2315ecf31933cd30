// The workbench attached through an SSH tunnel it manages, against a real sshd this test starts on
// loopback (Debian's openssh-server: a temporary host key, user key, authorized_keys and ssh config;
// as the current user): status read through the tunnel, the tunnel torn down on detach, and clear
// errors for a rejected key and for a worker that is not running on the far side. Skipped, saying
// so, only when /usr/sbin/sshd is absent (.ci/run installs openssh-server).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedReply } from '../../../gpu-worker/src/testing/scripted-replies';
import { startFakeWorker, TEST_TOKENS, type TestWorker } from '../../../gpu-worker/src/testing/workers';
import { WorkbenchError } from '../../shared/workbench-api';
import { createWorkbench, type Workbench } from '../workbench';
import { sshFailure, SshTunnel } from './ssh-tunnel';

const SSHD = '/usr/sbin/sshd';
const haveSshd = existsSync(SSHD);
if (!haveSshd) console.warn(`ssh-tunnel.test: skipped: ${SSHD} is absent (apt-get install openssh-server)`);

let dir: string;
let sshd: ChildProcess | null = null;
let wb: Workbench;
let worker: TestWorker;
let sshdLog = '';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

/** Host key, user key (and one that is not authorized), sshd config, ssh config with known_hosts. */
async function startSshd(): Promise<void> {
  dir = mkdtempSync(join(tmpdir(), 'aj-sshd-'));
  const keygen = (file: string): void => {
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', file]);
  };
  for (const k of ['host_key', 'id_user', 'id_stranger']) keygen(join(dir, k));
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'id_user.pub')), { mode: 0o600 });
  const port = await freePort();
  writeFileSync(
    join(dir, 'sshd_config'),
    [
      `ListenAddress 127.0.0.1`,
      `HostKey ${join(dir, 'host_key')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'PermitRootLogin prohibit-password',
      'StrictModes no',
      'UsePAM no',
      'AllowTcpForwarding local',
      '',
    ].join('\n'),
  );
  const hostKey = readFileSync(join(dir, 'host_key.pub'), 'utf8').trim();
  writeFileSync(join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${hostKey}\n`);
  const host = (alias: string, key: string): string =>
    [
      `Host ${alias}`,
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  User ${userInfo().username}`,
      `  IdentityFile ${join(dir, key)}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${join(dir, 'known_hosts')}`,
      '  GlobalKnownHostsFile /dev/null',
      '  StrictHostKeyChecking yes',
      '',
    ].join('\n');
  writeFileSync(join(dir, 'ssh_config'), host('gpu-box', 'id_user') + host('gpu-stranger', 'id_stranger'));
  // sshd run as root needs its privilege separation directory.
  if (process.getuid?.() === 0 && !existsSync('/run/sshd')) mkdirSync('/run/sshd', { mode: 0o755 });
  sshd = spawn(SSHD, ['-D', '-e', '-f', join(dir, 'sshd_config'), '-p', String(port)], { stdio: 'pipe' });
  sshd.stderr?.on('data', (d: Buffer) => (sshdLog += d.toString()));
  const t0 = Date.now();
  while (!(await accepts(port))) {
    if (sshd.exitCode !== null || Date.now() - t0 > 10_000) throw new Error(`sshd did not start:\n${sshdLog}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  if (!haveSshd) return;
  await startSshd();
  worker = await startFakeWorker({ training: { strategy: 'C1', batch: 100 } }, { engine: { reply: scriptedReply } });
  wb = await createWorkbench({
    dataDir: join(dir, 'data'),
    log: () => undefined,
    ssh: { configFile: join(dir, 'ssh_config') },
  });
}, 30_000);

afterAll(async () => {
  if (!haveSshd) return;
  await wb?.dispose();
  await worker?.stop();
  if (sshd && sshd.exitCode === null) {
    const gone = new Promise((r) => sshd!.once('exit', r));
    sshd.kill('SIGTERM');
    await gone;
  }
  rmSync(dir, { recursive: true, force: true });
});

async function errorOf(p: Promise<unknown>): Promise<WorkbenchError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof WorkbenchError)) throw new Error(`expected a WorkbenchError, got ${String(err)}`);
  return err;
}

describe('sshFailure', () => {
  it("turns ssh's reasons into what to do", () => {
    expect(sshFailure('gpu', 'root@127.0.0.1: Permission denied (publickey).', 255)).toMatch(
      /^ssh gpu: authentication failed/,
    );
    expect(sshFailure('gpu', 'Host key verification failed.', 255)).toMatch(/connect once with `ssh gpu`/);
    expect(sshFailure('gpu', 'ssh: Could not resolve hostname gpu: Name or service not known', 255)).toMatch(
      /host not found/,
    );
    expect(sshFailure('gpu', 'something odd', 3)).toBe('ssh gpu exited (code 3): something odd');
  });
});

describe.skipIf(!haveSshd)('attaching through an SSH tunnel (sshd on loopback)', () => {
  it('reads the status through the tunnel, and tears the tunnel down on detach', async () => {
    const remoteUrl = worker.worker.url; // the worker's address as the SSH host sees it
    const session = await wb.backend.connectRemote({
      url: remoteUrl,
      adminToken: TEST_TOKENS.admin,
      clients: 0,
      sshHost: 'gpu-box',
    });
    expect(session.transport).toEqual({
      remoteUrl,
      sshHost: 'gpu-box',
      fingerprint256: null,
      trustedOnFirstUse: false,
    });
    expect(session.model).toBe('fake-model');
    expect(session.state).toBe('running'); // from GET /swarm/v1/status through the tunnel
    const local = new URL(session.workerUrl);
    expect(local.hostname).toBe('127.0.0.1');
    expect(local.port).not.toBe(String(worker.worker.port));
    expect(await accepts(Number(local.port))).toBe(true);
    await wb.backend.disconnect({});
    expect(await accepts(Number(local.port))).toBe(false);
  }, 30_000);

  it('names a rejected key, and a worker that is not running on the far side', async () => {
    const denied = await errorOf(
      wb.backend.connectRemote({ url: worker.worker.url, adminToken: 'x', clients: 0, sshHost: 'gpu-stranger' }),
    );
    expect(denied.code).toBe('ssh_failed');
    expect(denied.message).toMatch(/^ssh gpu-stranger: authentication failed/);

    const nothing = `http://127.0.0.1:${await freePort()}`;
    const none = await errorOf(
      wb.backend.connectRemote({ url: nothing, adminToken: 'x', clients: 0, sshHost: 'gpu-box' }),
    );
    expect(none.code).toBe('unreachable');
    expect(none.message).toMatch(
      new RegExp(`^the SSH tunnel to gpu-box is up, but no worker answers at ${nothing} there`),
    );
  }, 30_000);

  it('an https worker through the tunnel: its certificate pinned for that SSH host', async () => {
    const secure = await startFakeWorker({ tls: 'self-signed' }, { engine: { reply: scriptedReply } });
    try {
      const p = { url: secure.worker.url, adminToken: TEST_TOKENS.admin, clients: 0, sshHost: 'gpu-box' };
      const session = await wb.backend.connectRemote(p);
      expect(session.workerUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(session.transport).toMatchObject({
        sshHost: 'gpu-box',
        fingerprint256: secure.worker.tls!.fingerprint256,
        trustedOnFirstUse: true,
      });
      const known = JSON.parse(readFileSync(join(dir, 'data', 'known-workers.json'), 'utf8')) as unknown;
      expect(known).toMatchObject({ workers: { [`ssh://gpu-box ${secure.worker.url}`]: {} } });
      await wb.backend.disconnect({});
    } finally {
      await secure.stop();
    }
  }, 30_000);

  it('reports a tunnel that drops while attached', async () => {
    const lost: string[] = [];
    const tunnel = await SshTunnel.open({
      host: 'gpu-box',
      targetHost: '127.0.0.1',
      targetPort: worker.worker.port,
      configFile: join(dir, 'ssh_config'),
      onLost: (reason) => lost.push(reason),
    });
    expect(await accepts(tunnel.localPort)).toBe(true);
    process.kill(tunnel.pid!, 'SIGKILL');
    const t0 = Date.now();
    while (lost.length === 0 && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 20));
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatch(/^the SSH tunnel to gpu-box closed: ssh gpu-box exited/);
    await tunnel.close();
  });
});
