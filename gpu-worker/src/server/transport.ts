// How the worker is reached: plain HTTP on loopback, or HTTPS (and WSS) with the operator's
// certificate (--tls-cert/--tls-key) or a self-signed one made on first start in <run-dir>/tls (key
// and certificate 0600, made with the system's `openssl` from a key Node generates), whose SHA-256
// fingerprint clients pin. A non-loopback bind without TLS is refused unless --insecure-http: every
// token, episode key and conversation would cross the network in clear text.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server as HttpServer, RequestListener } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { preparePrivateDir } from '../swarm/run-dir';
import { httpServerOptions, type ConnectionLimits } from './connections';

/** What the worker serves HTTPS with. */
export interface TlsMaterial {
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
  /** SHA-256 of the certificate (DER), `AB:CD:…`: what clients pin. */
  fingerprint256: string;
  selfSigned: boolean;
}

export interface TransportConfig {
  host: string;
  tls: 'off' | 'self-signed';
  tlsCert?: string | undefined;
  tlsKey?: string | undefined;
  insecureHttp: boolean;
  publicUrl?: string | undefined;
}

/** Whether binding `host` only answers this machine (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** The URL clients reach a server bound to `host:port` at (a wildcard bind answers on loopback). */
export function servingUrl(host: string, port: number, secure: boolean): string {
  const h = host.includes(':') ? `[${host}]` : host;
  return `${secure ? 'https' : 'http'}://${h === '0.0.0.0' || h === '[::]' ? '127.0.0.1' : h}:${port}`;
}

/** Why this config may not start (a non-loopback plain-HTTP bind without --insecure-http), or null. */
export function insecureBindProblem(c: TransportConfig): string | null {
  if (c.insecureHttp || isLoopbackHost(c.host) || c.tls !== 'off' || c.tlsCert !== undefined) return null;
  return (
    `--host ${c.host} would serve plain HTTP to other machines: the admin and join tokens, every episode key and ` +
    'every conversation would cross the network unencrypted. Serve HTTPS with --tls self-signed (a certificate ' +
    'made in the run folder; clients pin its fingerprint) or --tls-cert FILE --tls-key FILE, reach the worker ' +
    'through an SSH tunnel with --host 127.0.0.1, or accept the risk with --insecure-http true (e.g. behind a ' +
    'TLS-terminating proxy)'
  );
}

/** The names a self-signed certificate is valid for: loopback, this machine, the bind host, the public URL's host. */
export function certificateNames(c: Pick<TransportConfig, 'host' | 'publicUrl'>, machine = hostname()): string[] {
  const names = ['localhost', '127.0.0.1', '::1', machine];
  if (c.host !== '0.0.0.0' && c.host !== '::') names.push(c.host.replace(/^\[|\]$/g, ''));
  if (c.publicUrl) names.push(new URL(c.publicUrl).hostname.replace(/^\[|\]$/g, ''));
  const valid = names.filter((n) => isIP(n) !== 0 || /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(n));
  return [...new Set(valid)];
}

function opensslConfig(names: readonly string[]): string {
  const san = names.map((n) => (isIP(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
  return [
    '[req]',
    'distinguished_name = dn',
    'x509_extensions = v3',
    'prompt = no',
    '[dn]',
    'CN = AgentJet worker (self-signed)',
    '[v3]',
    `subjectAltName = ${san}`,
    'basicConstraints = critical,CA:TRUE,pathlen:0',
    'keyUsage = critical,digitalSignature,keyCertSign',
    'extendedKeyUsage = serverAuth',
    'subjectKeyIdentifier = hash',
    'authorityKeyIdentifier = keyid:always',
    '',
  ].join('\n');
}

/** Makes `dir/key.pem` (P-256, 0600) and a self-signed `dir/cert.pem` valid for `names` (10 years). */
export function makeSelfSigned(dir: string, names: readonly string[], openssl = 'openssl'): void {
  preparePrivateDir(dir);
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  const cnf = join(dir, 'openssl.cnf');
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  writeFileSync(cnf, opensslConfig(names), { mode: 0o600 });
  try {
    const args = [
      'req',
      '-x509',
      '-new',
      '-sha256',
      '-days',
      '3650',
      '-key',
      keyFile,
      '-config',
      cnf,
      '-out',
      certFile,
    ];
    execFileSync(openssl, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 30_000 });
  } catch (err) {
    rmSync(keyFile, { force: true });
    rmSync(certFile, { force: true });
    const missing = err instanceof Error && 'code' in err && err.code === 'ENOENT';
    const stderr = err instanceof Error && 'stderr' in err ? String(err.stderr).trim().slice(0, 500) : '';
    throw new Error(
      missing
        ? `--tls self-signed needs the openssl command to make the certificate, and ${openssl} was not found: ` +
            'install it (e.g. apt-get install openssl) or give --tls-cert FILE --tls-key FILE'
        : `making the self-signed certificate with ${openssl} failed: ${stderr || String(err)}`,
    );
  } finally {
    rmSync(cnf, { force: true });
  }
}

function readPem(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${what} ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * The certificate and key to serve, or null for plain HTTP: the given files, else the run folder's
 * self-signed pair (made when missing). Throws a clear error for half a pair or unreadable files.
 */
export function loadTls(c: TransportConfig, runDir: string): TlsMaterial | null {
  if ((c.tlsCert === undefined) !== (c.tlsKey === undefined))
    throw new Error('--tls-cert and --tls-key go together: give both (or --tls self-signed)');
  if (c.tlsCert !== undefined && c.tls === 'self-signed')
    throw new Error('--tls self-signed contradicts --tls-cert/--tls-key: give one or the other');
  let certFile = c.tlsCert;
  let keyFile = c.tlsKey;
  const selfSigned = certFile === undefined;
  if (certFile === undefined || keyFile === undefined) {
    if (c.tls !== 'self-signed') return null;
    const dir = join(runDir, 'tls');
    [certFile, keyFile] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
    if (!existsSync(certFile) || !existsSync(keyFile)) makeSelfSigned(dir, certificateNames(c));
  }
  const cert = readPem(certFile, '--tls-cert');
  const key = readPem(keyFile, '--tls-key');
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch (err) {
    throw new Error(`${certFile}: not a PEM certificate (${err instanceof Error ? err.message : String(err)})`);
  }
  return { cert, key, certFile, keyFile, fingerprint256: x509.fingerprint256, selfSigned };
}

/** The certificate to serve (null: plain HTTP), after refusing a plain-HTTP non-loopback bind. */
export function prepareTransport(c: TransportConfig, runDir: string): TlsMaterial | null {
  const insecure = insecureBindProblem(c);
  if (insecure) throw new Error(insecure);
  return loadTls(c, runDir);
}

/** Fastify's serverFactory: Node's HTTPS server with the same timeouts the plain one gets. */
export function httpsServerFactory(
  tls: TlsMaterial,
  limits: ConnectionLimits,
): (handler: RequestListener) => HttpServer {
  return (handler) => {
    const server = createHttpsServer({ ...httpServerOptions(limits), cert: tls.cert, key: tls.key }, handler);
    server.keepAliveTimeout = limits.keepAliveTimeoutMs;
    server.requestTimeout = limits.requestTimeoutMs;
    server.setTimeout(0);
    return server;
  };
}
