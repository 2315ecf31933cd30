// Reaching a remote worker before following it: through an SSH tunnel when asked, then — for an
// https URL — the certificate the worker presents, checked against the one trusted for this remote
// (trust on first use, a fingerprint the user gave, a changed one refused), and the health/admin
// probe through the pinned-certificate agent. What it returns owns the tunnel and the agent.
import { writeFileSync } from 'node:fs';
import type { Agent } from 'node:http';
import { join } from 'node:path';
import { parseFingerprint } from '../../shared/tls-fingerprint';
import type { Health, Status } from '../../shared/swarm-protocol';
import { WorkbenchError, type RemoteConnect, type TransportInfo } from '../../shared/workbench-api';
import { PinnedAgent, readCertificate } from '../pinned-tls';
import { KnownCertificates, pinDecision } from './known-certificates';
import { SshTunnel } from './ssh-tunnel';
import { normalizeWorkerUrl, WorkerClient } from '../worker-client';
import type { WorkerConnection } from './worker-service';
import type { NewRun } from '../store/types';

export interface SshSettings {
  /** An ssh config file (`ssh -F`); default: the user's ~/.ssh/config. */
  configFile?: string;
  binary?: string;
}

export interface RemoteAttachment {
  /** The URL the workbench talks to (the tunnel's local end when through SSH). */
  url: string;
  /** The pinned-certificate agent of an https worker. */
  agent: Agent | null;
  /** The worker's certificate as PEM (for local clients' CA file), when https. */
  certificatePem: string | null;
  transport: TransportInfo;
  probe: { health: Health; status: Status };
  /** Called when the SSH tunnel drops while attached. */
  onLost(listener: (reason: string) => void): void;
  close(): Promise<void>;
}

/** Which remote a pin belongs to: the URL as given, and the SSH host it is reached through. */
export const remoteKey = (url: string, sshHost: string | undefined): string =>
  sshHost ? `ssh://${sshHost} ${url}` : url;

async function pinCertificate(url: string, key: string, given: string | null, known: KnownCertificates) {
  let presented;
  try {
    presented = await readCertificate(url);
  } catch (err) {
    const code = err instanceof Error && 'code' in err ? String(err.code) : '';
    const why = /SSL|EPROTO/.test(code)
      ? 'no TLS handshake (does the worker serve plain HTTP? then use http://)'
      : err instanceof Error
        ? err.message
        : String(err);
    throw new WorkbenchError('unreachable', `cannot reach ${url}: ${why}`);
  }
  const decision = pinDecision(key, presented.fingerprint256, known.get(key), given);
  if (!decision.ok) throw new WorkbenchError(decision.code, decision.message);
  return { decision, pem: presented.pem };
}

/** The stored run of a remote attach (the connect params without tokens). */
export function remoteRun(
  p: RemoteConnect,
  r: RemoteAttachment,
  runId: string,
  example: string | null,
  at: number,
): NewRun {
  return {
    runId,
    name: `remote ${r.transport.sshHost ?? new URL(r.transport.remoteUrl).host}`,
    mode: 'remote',
    workerUrl: r.transport.remoteUrl,
    model: r.probe.health.model,
    example,
    config: { connect: { ...p, adminToken: undefined, joinToken: undefined } },
    createdAt: at,
  };
}

/** The WorkerService connection of an attachment; an https worker's certificate is written to runDir for local clients. */
export function remoteConnection(p: RemoteConnect, r: RemoteAttachment, runDir: string): WorkerConnection {
  const caFile = r.certificatePem ? join(runDir, 'worker-certificate.pem') : null;
  if (caFile && r.certificatePem) writeFileSync(caFile, r.certificatePem, { mode: 0o600 });
  return {
    url: r.url,
    adminToken: p.adminToken,
    joinToken: p.joinToken ?? null,
    local: null,
    remote: { agent: r.agent, caFile, close: () => r.close() },
  };
}

export async function attachRemote(
  p: RemoteConnect,
  o: { known: KnownCertificates; ssh: SshSettings },
): Promise<RemoteAttachment> {
  const given = p.fingerprint !== undefined ? parseFingerprint(p.fingerprint) : null;
  const remoteUrl = normalizeWorkerUrl(p.url);
  const lost = new Set<(reason: string) => void>();
  let tunnel: SshTunnel | null = null;
  let agent: PinnedAgent | null = null;
  try {
    let url = remoteUrl;
    if (p.sshHost) {
      const u = new URL(remoteUrl);
      tunnel = await SshTunnel.open({
        host: p.sshHost,
        targetHost: u.hostname.replace(/^\[|\]$/g, ''),
        targetPort: Number(u.port || (u.protocol === 'https:' ? 443 : 80)),
        ...o.ssh,
        onLost: (reason) => lost.forEach((l) => l(reason)),
      });
      url = `${u.protocol}//127.0.0.1:${tunnel.localPort}${u.pathname.replace(/\/+$/, '')}`;
    }
    const key = remoteKey(remoteUrl, p.sshHost);
    const pinned = url.startsWith('https:') ? await pinCertificate(url, key, given, o.known) : null;
    agent = pinned ? new PinnedAgent(pinned.decision.fingerprint256) : null;
    const probe = await new WorkerClient(url, p.adminToken, { timeoutMs: 10_000, ...(agent ? { agent } : {}) })
      .probe()
      .catch((err: unknown) => {
        if (tunnel && err instanceof WorkbenchError && err.code === 'unreachable')
          throw new WorkbenchError(
            'unreachable',
            `the SSH tunnel to ${p.sshHost} is up, but no worker answers at ${remoteUrl} there (${err.message}); is it running, with that --host and --port?`,
          );
        throw err;
      });
    if (pinned) o.known.trust(key, pinned.decision.fingerprint256);
    const t = tunnel;
    const a = agent;
    return {
      url,
      agent: a,
      certificatePem: pinned?.pem ?? null,
      transport: {
        remoteUrl,
        sshHost: p.sshHost ?? null,
        fingerprint256: pinned?.decision.fingerprint256 ?? null,
        trustedOnFirstUse: pinned?.decision.firstUse ?? false,
      },
      probe,
      onLost: (l) => void lost.add(l),
      close: async () => {
        lost.clear();
        a?.destroy();
        await t?.close();
      },
    };
  } catch (err) {
    agent?.destroy();
    await tunnel?.close();
    throw err;
  }
}
