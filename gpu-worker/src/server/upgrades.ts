// The worker's WebSocket endpoints behind one `upgrade` listener: each path of the route table that is a
// WebSocket (the events stream, the replica attach) has a handler; any other path is refused with a 404.
// A refusal is a plain HTTP answer with the worker's `{error: {type, code, message}}` body.
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { notFound, SwarmError, unauthorized } from '../errors';
import type { TokenMatcher } from '../swarm/keys';
import { requireRole } from './auth';

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer, url: URL) => void;

/** Answers an upgrade request with `err` instead of switching protocols, and closes the socket. */
export function refuseUpgrade(socket: Duplex, err: SwarmError): void {
  const body = JSON.stringify(err.toBody());
  const retry = err.retryAfterS !== undefined ? `retry-after: ${err.retryAfterS}\r\n` : '';
  socket.end(
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? 'Error'}\r\ncontent-type: application/json\r\n` +
      `${retry}content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** Checks that an upgrade request carries the admin key; otherwise refuses it and returns false. */
export function admitsAdmin(req: IncomingMessage, socket: Duplex, matcher: TokenMatcher): boolean {
  try {
    requireRole(req.headers, matcher, 'admin');
    return true;
  } catch (err) {
    refuseUpgrade(socket, err instanceof SwarmError ? err : unauthorized('invalid_credentials', 'unauthorized'));
    return false;
  }
}

/** Routes `server`'s upgrade requests by path; returns the function that stops listening. */
export function serveUpgrades(server: Server, routes: Readonly<Record<string, UpgradeHandler>>): () => void {
  const handlers = new Map(Object.entries(routes));
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => undefined);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const handler = handlers.get(url.pathname);
    if (!handler) return refuseUpgrade(socket, notFound('route_not_found', `no WebSocket endpoint ${url.pathname}`));
    handler(req, socket, head, url);
  };
  server.on('upgrade', onUpgrade);
  return () => server.off('upgrade', onUpgrade);
}
