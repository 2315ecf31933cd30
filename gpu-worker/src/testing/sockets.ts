// Test helpers speaking HTTP/1.1 over raw TCP sockets: what a slow or hostile client does that
// fetch cannot (trickle headers or a body byte by byte, hold connections open, send oversized
// header blocks), and a parser for the answer the server writes back before closing.
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** Milliseconds from connecting until the server closed the connection. */
  closedAfterMs: number;
  /** Bytes this client managed to write before the connection closed. */
  bytesSent: number;
}

export interface RawOptions {
  /** Sent at once after connecting (request line + headers, maybe part of a body). */
  head: string;
  /** Sent afterwards, one chunk every `everyMs`, until the server closes the connection. */
  trickle?: { chunk: string; everyMs: number };
  /** Give up (and destroy the socket) after this long. */
  timeoutMs?: number;
}

function parseAnswer(raw: string): Omit<RawAnswer, 'closedAfterMs' | 'bytesSent'> {
  const split = raw.indexOf('\r\n\r\n');
  const head = split >= 0 ? raw.slice(0, split) : raw;
  const [statusLine = '', ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const text = split >= 0 ? raw.slice(split + 4) : '';
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON (or chunked): kept as text
  }
  return { status, headers, body };
}

/** One raw exchange: writes `head`, trickles, and resolves when the server closes the socket. */
export function rawExchange(url: string, o: RawOptions): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const socket: Socket = connect({ host: hostname, port: Number(port) });
    let received = '';
    let bytesSent = 0;
    let timer: NodeJS.Timeout | null = null;
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(
          `the server kept the connection open for ${o.timeoutMs ?? 30_000} ms (received: ${received.slice(0, 200)})`,
        ),
      );
    }, o.timeoutMs ?? 30_000);
    const write = (text: string): void => {
      if (socket.destroyed || !socket.writable) return;
      bytesSent += Buffer.byteLength(text);
      socket.write(text);
    };
    socket.on('connect', () => {
      write(o.head);
      if (o.trickle) {
        const { chunk, everyMs } = o.trickle;
        timer = setInterval(() => write(chunk), everyMs);
      }
    });
    socket.on('data', (d: Buffer) => (received += d.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (timer) clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ ...parseAnswer(received), closedAfterMs: Date.now() - t0, bytesSent });
    });
  });
}

/** Opens a connection and keeps it open, sending nothing; resolves once connected. */
export function openIdle(url: string): Promise<{ socket: Socket; closed: Promise<string> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString('utf8')));
    socket.on('error', () => undefined);
    const closed = new Promise<string>((r) => socket.on('close', () => r(received)));
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

/** A request head for `method path` with a bearer token and a declared body length. */
export function requestHead(
  method: string,
  path: string,
  opts: { token?: string; contentLength?: number; extra?: string } = {},
): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1'];
  if (opts.token !== undefined) lines.push(`Authorization: Bearer ${opts.token}`);
  if (opts.contentLength !== undefined)
    lines.push('Content-Type: application/json', `Content-Length: ${opts.contentLength}`);
  if (opts.extra) lines.push(opts.extra);
  return `${lines.join('\r\n')}\r\n\r\n`;
}
