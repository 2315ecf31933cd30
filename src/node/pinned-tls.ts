// Certificate pinning for the workbench's connections to an https worker. PinnedAgent (an
// https.Agent, so both the admin HTTP calls and the events WebSocket use it) hands a socket to its
// request only after the TLS handshake showed the pinned certificate (SHA-256 of its DER): no byte
// of a request, the admin token included, ever reaches another peer. Chain and host name are not
// checked — the pin is the trust decision, as with ssh's known_hosts — so a self-signed worker
// certificate reached through a tunnel or by any name works. `readCertificate` reads what a worker
// presents without sending anything (trust on first use).
import { Agent, type RequestOptions } from 'node:https';
import type { Duplex } from 'node:stream';
import { connect, type ConnectionOptions, type TLSSocket } from 'node:tls';

/** What a TLS peer presented: its certificate's SHA-256 fingerprint (`AB:CD:…`) and the certificate as PEM. */
export interface PresentedCertificate {
  fingerprint256: string;
  pem: string;
}

/** The handshake showed another certificate than the pinned one. */
export class CertificateMismatchError extends Error {
  readonly code = 'certificate_changed';
  constructor(
    readonly pinned: string,
    readonly presented: string,
    where: string,
  ) {
    super(`${where}: the worker presented certificate SHA-256 ${presented}, not the pinned ${pinned}; refused`);
    this.name = 'CertificateMismatchError';
  }
}

function presented(socket: TLSSocket): PresentedCertificate | null {
  const c = socket.getPeerCertificate();
  if (!c || !c.raw || !c.fingerprint256) return null;
  const b64 = c.raw.toString('base64').replace(/.{64}/g, '$&\n');
  return { fingerprint256: c.fingerprint256, pem: `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n` };
}

/** An https.Agent whose connections are used only when the peer shows the certificate `fingerprint256`. */
export class PinnedAgent extends Agent {
  constructor(readonly fingerprint256: string) {
    // No TLS session reuse: every connection shows its certificate in a full handshake.
    super({ keepAlive: true, maxCachedSessions: 0 });
  }

  override createConnection(
    options: RequestOptions,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    if (!callback) throw new Error('PinnedAgent: a connection is handed over only through the callback');
    const socket = connect({ ...(options as ConnectionOptions), rejectUnauthorized: false });
    const where = `${options.host ?? '?'}:${String(options.port ?? '?')}`;
    const fail = (err: Error): void => {
      socket.destroy();
      callback(err, socket);
    };
    socket.once('error', fail);
    socket.once('secureConnect', () => {
      socket.off('error', fail);
      const cert = presented(socket);
      if (cert?.fingerprint256 === this.fingerprint256) callback(null, socket);
      else fail(new CertificateMismatchError(this.fingerprint256, cert?.fingerprint256 ?? '(none)', where));
    });
    return undefined;
  }
}

/** Connects to `https://host:port`, reads the certificate of the handshake and closes, sending nothing. */
export function readCertificate(url: string, timeoutMs = 10_000): Promise<PresentedCertificate> {
  const u = new URL(url);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const socket = connect({
      host,
      port: Number(u.port || 443),
      rejectUnauthorized: false,
      ...(/^[\d.]+$|:/.test(host) ? {} : { servername: host }),
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      const cert = presented(socket);
      socket.end();
      if (cert) resolve(cert);
      else reject(new Error('the TLS handshake showed no certificate'));
    });
  });
}
