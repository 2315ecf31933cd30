// The WebSocket bridge `agentjet ui` serves: one HTTP server on 127.0.0.1 that hands out the built
// renderer's static files and upgrades `GET /bridge?token=…` to a WebSocket speaking the
// WorkbenchApi frames (calls in, results/errors/events out). The token is required on the
// upgrade (constant-time compare, never logged); foreign Origins and Hosts are refused.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { BridgeReply, WorkbenchBackend, WorkbenchEvent } from '../../shared/workbench-api';
import { handleBridgeFrame } from './frames';
import { securityHeaders, serveStatic } from './static-files';
import { newBridgeToken, tokensEqual } from './token';

export const BRIDGE_PATH = '/bridge';
export const DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024;
/** A socket this far behind on events is dropped rather than buffering without bound. */
const MAX_BUFFERED_BYTES = 64 * 1024 * 1024;
const PING_INTERVAL_MS = 30_000;

export interface BridgeOptions {
  backend: WorkbenchBackend;
  /** The workbench's event stream; every event goes to every connected socket. */
  onEvent(listener: (event: WorkbenchEvent) => void): () => void;
  /** The built renderer (index.html + assets). */
  staticDir: string;
  /** Bind address (default 127.0.0.1). */
  host?: string;
  /** Port (default 0: a free one). */
  port?: number;
  /** The session token (default: a fresh random one). */
  token?: string;
  maxFrameBytes?: number;
  log?: (line: string) => void;
}

export interface BridgeServer {
  /** The server's base URL, e.g. http://127.0.0.1:8330. */
  readonly url: string;
  /** What the user opens: the base URL with the token in the hash (`/#token=…`). */
  readonly pageUrl: string;
  readonly port: number;
  readonly token: string;
  /** Open bridge sockets. */
  connections(): number;
  close(): Promise<void>;
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);
const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The hostname of a Host header (`127.0.0.1:8330` → `127.0.0.1`, `[::1]:80` → `[::1]`), or null. */
export function hostnameOf(hostHeader: string | undefined): string | null {
  if (!hostHeader) return null;
  try {
    return new URL(`http://${hostHeader}`).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * Whether a request's Host header names this server: a loopback name, the bound host, or (bound
 * to a wildcard address) any IP literal. Other names are refused, which defeats DNS rebinding.
 */
export function hostAllowed(hostHeader: string | undefined, boundHost: string): boolean {
  const name = hostnameOf(hostHeader);
  if (name === null) return false;
  if (LOOPBACK_NAMES.has(name) || name === boundHost.toLowerCase()) return true;
  return WILDCARD_HOSTS.has(boundHost) && isIP(name.replace(/^\[|\]$/g, '')) !== 0;
}

/** An Origin header is acceptable when absent (non-browser clients) or exactly this server's origin. */
export function originAllowed(origin: string | undefined, hostHeader: string | undefined): boolean {
  if (origin === undefined) return true;
  return hostHeader !== undefined && origin.toLowerCase() === `http://${hostHeader.toLowerCase()}`;
}

function rejectUpgrade(socket: Duplex, status: 400 | 401 | 403 | 404, reason: string): void {
  const text = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' }[status];
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(reason)}\r\n\r\n${reason}`,
  );
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

function rawLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((n, b) => n + b.length, 0);
  return data instanceof ArrayBuffer ? data.byteLength : data.length;
}

/** Sends a reply; a result that cannot be serialised (a cycle, a BigInt) is the backend's bug, answered as one. */
function sendReply(ws: WebSocket, reply: BridgeReply): void {
  if (ws.readyState !== WebSocket.OPEN) return;
  let text: string;
  try {
    text = JSON.stringify(reply);
  } catch (err) {
    const id = reply.type === 'event' ? null : reply.id;
    text = JSON.stringify({
      type: 'error',
      id,
      error: {
        type: 'internal',
        code: 'internal',
        message: `unserialisable reply: ${err instanceof Error ? err.message : String(err)}`,
      },
    } satisfies BridgeReply);
  }
  ws.send(text);
}

/** Answers one socket's frames: JSON text within the size limit, each dispatched to the backend. */
function serveSocket(ws: WebSocket, backend: WorkbenchBackend, maxFrameBytes: number): void {
  ws.on('message', (data, isBinary) => {
    if (isBinary) {
      sendReply(ws, {
        type: 'error',
        id: null,
        error: {
          type: 'invalid_request',
          code: 'bad_frame',
          message: 'binary frames are not supported; send JSON text',
        },
      });
      return;
    }
    const size = rawLength(data);
    if (size > maxFrameBytes) {
      sendReply(ws, {
        type: 'error',
        id: null,
        error: {
          type: 'invalid_request',
          code: 'frame_too_large',
          message: `frame of ${size} bytes exceeds the ${maxFrameBytes}-byte limit; closing`,
        },
      });
      ws.close(1009, 'frame too large');
      return;
    }
    void handleBridgeFrame(backend, rawText(data)).then((reply) => sendReply(ws, reply));
  });
}

/** Why an upgrade request is refused (status, reason, what to log), or null when it may connect. */
export function upgradeRefusal(
  req: IncomingMessage,
  host: string,
  token: string,
): { status: 400 | 401 | 403 | 404; reason: string; logged?: string } | null {
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://bridge.invalid');
  } catch {
    return { status: 400, reason: 'bad request URL' };
  }
  if (url.pathname !== BRIDGE_PATH)
    return { status: 404, reason: `no WebSocket at ${url.pathname}; the bridge is ${BRIDGE_PATH}` };
  if (!hostAllowed(req.headers.host, host))
    return { status: 403, reason: 'unexpected Host header', logged: 'unexpected Host header' };
  if (!originAllowed(req.headers.origin, req.headers.host))
    return { status: 403, reason: 'foreign Origin', logged: `foreign Origin ${JSON.stringify(req.headers.origin)}` };
  if (!tokensEqual(url.searchParams.get('token'), token))
    return { status: 401, reason: 'missing or wrong token', logged: 'missing or wrong token' };
  return null;
}

/** Pushes each event to every open socket; a socket that stopped reading is dropped. */
function broadcast(wss: WebSocketServer, event: WorkbenchEvent, log: (line: string) => void): void {
  if (wss.clients.size === 0) return;
  let text: string;
  try {
    text = JSON.stringify({ type: 'event', event } satisfies BridgeReply);
  } catch (err) {
    log(`bridge: dropped an unserialisable ${event.type} event: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  for (const ws of wss.clients) {
    if (ws.readyState !== WebSocket.OPEN) continue;
    if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      log('bridge: dropping a socket that stopped reading events');
      ws.terminate();
      continue;
    }
    ws.send(text);
  }
}

/** Pings every socket each interval; one that did not answer the last ping is terminated. */
function startPinger(wss: WebSocketServer, alive: WeakMap<WebSocket, boolean>): NodeJS.Timeout {
  const pinger = setInterval(() => {
    for (const ws of wss.clients) {
      if (alive.get(ws) === false) {
        ws.terminate();
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, PING_INTERVAL_MS);
  pinger.unref();
  return pinger;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolvePromise();
    });
  });
}

export async function startBridgeServer(opts: BridgeOptions): Promise<BridgeServer> {
  const host = opts.host ?? '127.0.0.1';
  const token = opts.token ?? newBridgeToken();
  const maxFrameBytes = opts.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  const log = opts.log ?? (() => undefined);

  const server: Server = createServer((req, res) => {
    if (!hostAllowed(req.headers.host, host)) {
      res.writeHead(403, { ...securityHeaders(), 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('unexpected Host header');
      return;
    }
    serveStatic(opts.staticDir, req, res);
  });
  // Frames between maxFrameBytes and this hard cap get a clear error frame; beyond it ws closes with 1009.
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxFrameBytes * 2 + 1024, perMessageDeflate: false });
  const alive = new WeakMap<WebSocket, boolean>();

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const remote = `${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'}`;
    const refused = upgradeRefusal(req, host, token);
    if (refused) {
      if (refused.logged) log(`bridge: refused ${remote}: ${refused.logged}`);
      return rejectUpgrade(socket, refused.status, refused.reason);
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      alive.set(ws, true);
      log(`bridge: ${remote} connected (${wss.clients.size} open)`);
      ws.on('pong', () => alive.set(ws, true));
      ws.on('error', (err) => log(`bridge: ${remote} socket error: ${err.message}`));
      ws.on('close', (code) => log(`bridge: ${remote} disconnected (${code}; ${wss.clients.size} open)`));
      serveSocket(ws, opts.backend, maxFrameBytes);
    });
  });

  const unsubscribe = opts.onEvent((event) => broadcast(wss, event, log));
  const pinger = startPinger(wss, alive);
  await listen(server, opts.port ?? 0, host);
  const port = (server.address() as AddressInfo).port;
  const shownHost = WILDCARD_HOSTS.has(host)
    ? '127.0.0.1'
    : host.includes(':') && !host.startsWith('[')
      ? `[${host}]`
      : host;
  const url = `http://${shownHost}:${port}`;

  let closing: Promise<void> | null = null;
  return {
    url,
    pageUrl: `${url}/#token=${token}`,
    port,
    token,
    connections: () => wss.clients.size,
    close: () => {
      closing ??= (async () => {
        clearInterval(pinger);
        unsubscribe();
        for (const ws of wss.clients) ws.close(1001, 'the workbench is shutting down');
        await new Promise<void>((r) => wss.close(() => r()));
        await new Promise<void>((r) => {
          server.close(() => r());
          server.closeAllConnections();
        });
        for (const ws of wss.clients) ws.terminate();
      })();
      return closing;
    },
  };
}
