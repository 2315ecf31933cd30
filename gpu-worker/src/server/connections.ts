// Connection-level defences of the HTTP server, below the router: the timeouts a slow or silent
// client runs into, a bound on concurrent connections per remote address, and the raw answer
// written on a socket when there is no request object to answer with (refused connections,
// unparseable requests, headers too large) — in the documented `{error: {type, code, message}}`.
import type { Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { ErrorTypes } from '../../../src/shared/swarm-protocol';
import { SwarmError } from '../errors';

export interface ConnectionLimits {
  /** The request line and headers must arrive within this (slowloris). */
  headersTimeoutMs: number;
  /** The whole request, body included, must arrive within this (a trickled body). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Concurrent connections from one remote address; more are refused with a 503 (0: no limit). */
  maxConnectionsPerAddress: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 30_000,
  maxConnectionsPerAddress: 256,
};

/** Node's options for http.createServer: how often the header/request timeouts are checked. */
export function httpServerOptions(l: ConnectionLimits): {
  headersTimeout: number;
  requestTimeout: number;
  connectionsCheckingInterval: number;
} {
  return {
    headersTimeout: Math.min(l.headersTimeoutMs, l.requestTimeoutMs),
    requestTimeout: l.requestTimeoutMs,
    // Node enforces both timeouts on this tick (default 30 s, which would double them).
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(l.headersTimeoutMs / 4))),
  };
}

/** An HTTP/1.1 answer written straight to a socket, then the socket is closed. */
export function writeRawError(socket: Duplex, err: SwarmError): void {
  if (socket.destroyed) return;
  const body = JSON.stringify(err.toBody());
  const retry = err.retryAfterS !== undefined ? `retry-after: ${err.retryAfterS}\r\n` : '';
  const head =
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? 'Error'}\r\ncontent-type: application/json; ` +
    `charset=utf-8\r\n${retry}content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n`;
  // Destroyed once written, so nothing more is read from it; a peer that never reads cannot keep
  // it either (destroyed after a second in any case).
  const timer = setTimeout(() => socket.destroy(), 1000);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  if (socket.writable) socket.end(head + body, () => socket.destroy());
  else socket.destroy();
}

const clientErrors: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    'headers_too_large',
    'the request line and headers are larger than this server accepts (16 KiB)',
  ],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'the request did not arrive in time; send it faster or in one go'],
  HPE_URI_TOO_LONG: [414, 'uri_too_long', 'the request URL is too long'],
};

/** Fastify's `clientErrorHandler`: what Node could not parse (or that timed out) gets a JSON error. */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const known = err.code ? clientErrors[err.code] : undefined;
  const [status, code, message] = known ?? [
    400,
    'bad_request',
    `the request could not be parsed as HTTP/1.1 (${err.code ?? 'parse error'})`,
  ];
  writeRawError(socket, new SwarmError(status, ErrorTypes.invalid, code, message));
}

/**
 * Bounds the concurrent connections of each remote address. A connection over the bound is
 * answered at once with a 503 `too_many_connections` (with Retry-After) and closed. Returns a
 * function that reports the current count for an address (for tests and status).
 */
export function limitConnectionsPerAddress(server: Server, max: number): (address: string) => number {
  const open = new Map<string, number>();
  if (max <= 0) return () => 0;
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const n = open.get(address) ?? 0;
    if (n >= max) {
      socket.on('error', () => undefined);
      writeRawError(
        socket,
        new SwarmError(
          503,
          ErrorTypes.unavailable,
          'too_many_connections',
          `more than ${max} concurrent connections from ${address}; close some (or reuse them) and retry`,
          1,
        ),
      );
      return;
    }
    open.set(address, n + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
  return (address) => open.get(address) ?? 0;
}
