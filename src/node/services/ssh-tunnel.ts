// An SSH tunnel the workbench manages to reach a worker that listens on a remote host's loopback:
// the system `ssh` with `-N -L 127.0.0.1:<free local port>:<worker host>:<worker port> <host>`, so the
// host, user, key, jump hosts and host-key checks are the user's own (~/.ssh/config, or `-F FILE`).
// BatchMode (never a prompt) and ExitOnForwardFailure make every failure an exit with ssh's reason,
// turned into one clear error; the tunnel is ready once its local port accepts a connection, and is
// torn down (SIGTERM, then SIGKILL) on close.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { WorkbenchError } from '../../shared/workbench-api';

export interface SshTunnelOptions {
  /** A host alias of the ssh config, or `user@host`. */
  host: string;
  /** Where the worker listens, as the SSH host sees it (usually 127.0.0.1 and its --port). */
  targetHost: string;
  targetPort: number;
  /** An ssh config file (`-F`); default: ssh's own (~/.ssh/config). */
  configFile?: string;
  /** The ssh binary (default `ssh` on PATH). */
  binary?: string;
  startTimeoutMs?: number;
  /** Called once when ssh exits on its own after the tunnel was up (the connection is lost). */
  onLost?: (reason: string) => void;
}

/** ssh's stderr → what went wrong, for the user. */
export function sshFailure(host: string, stderr: string, code: number | null): string {
  const text = stderr.trim();
  const known: [RegExp, string][] = [
    [
      /Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED/i,
      `ssh ${host}: the host key is unknown or changed; connect once with \`ssh ${host}\` in a terminal to check ` +
        'and accept it',
    ],
    [
      /Permission denied/i,
      `ssh ${host}: authentication failed (no password prompts here: give the key in your ~/.ssh/config, e.g. ` +
        'IdentityFile, or load it into ssh-agent)',
    ],
    [/Could not resolve hostname/i, `ssh ${host}: host not found (is it a Host alias of your ~/.ssh/config?)`],
    [/Connection refused/i, `ssh ${host}: connection refused (is sshd running there, on the configured port?)`],
    [/timed out/i, `ssh ${host}: connection timed out`],
    [/forwarding failed|cannot listen|Address already in use/i, `ssh ${host}: the local port forwarding failed`],
  ];
  const hit = known.find(([re]) => re.test(text));
  const tail = text.split('\n').slice(-3).join(' | ');
  return hit ? `${hit[1]} — ${tail}` : `ssh ${host} exited (code ${code ?? '?'}): ${tail || 'no message'}`;
}

/** A local port free now (the kernel's pick; ssh binds it right after). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

export class SshTunnel {
  private closed = false;

  private constructor(
    private readonly child: ChildProcess,
    readonly localPort: number,
    readonly host: string,
  ) {}

  /** Starts ssh and resolves once the local end of the tunnel accepts connections. */
  static async open(o: SshTunnelOptions): Promise<SshTunnel> {
    if (o.host.startsWith('-')) throw new WorkbenchError('invalid_params', `SSH host ${o.host}: may not start with -`);
    const localPort = await freePort();
    const args = [
      '-N',
      '-T',
      ...['-o', 'BatchMode=yes', '-o', 'ExitOnForwardFailure=yes', '-o', 'ConnectTimeout=15'],
      ...['-o', 'ServerAliveInterval=15', '-o', 'ServerAliveCountMax=3'],
      ...(o.configFile ? ['-F', o.configFile] : []),
      '-L',
      `127.0.0.1:${localPort}:${o.targetHost}:${o.targetPort}`,
      '--',
      o.host,
    ];
    const child = spawn(o.binary ?? 'ssh', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    const tunnel = new SshTunnel(child, localPort, o.host);
    const exited = new Promise<string>((resolve) => {
      child.once('error', (err) =>
        resolve(`ssh could not be started (${err.message}); is OpenSSH's client installed?`),
      );
      child.once('exit', (code) => resolve(sshFailure(o.host, stderr, code)));
    });
    const deadline = Date.now() + (o.startTimeoutMs ?? 20_000);
    let up = false;
    while (!up) {
      const failed = await Promise.race([exited, new Promise<null>((r) => setTimeout(() => r(null), 100))]);
      if (failed !== null) throw new WorkbenchError('ssh_failed', failed);
      up = await accepts(localPort);
      if (!up && Date.now() > deadline) {
        await tunnel.close();
        throw new WorkbenchError(
          'ssh_failed',
          `ssh ${o.host}: the tunnel was not up within ${o.startTimeoutMs ?? 20_000} ms`,
        );
      }
    }
    void exited.then((reason) => {
      if (!tunnel.closed) o.onLost?.(`the SSH tunnel to ${o.host} closed: ${reason}`);
    });
    return tunnel;
  }

  /** The ssh process id (tests). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Stops ssh (SIGTERM, SIGKILL after 2 s); resolves once it exited. */
  async close(): Promise<void> {
    this.closed = true;
    const child = this.child;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
    await gone;
    clearTimeout(timer);
  }
}
