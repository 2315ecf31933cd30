// The `train` bench's client-side ledger: a pass-through HTTP proxy the swarm clients talk to instead
// of the worker (everything forwarded byte for byte, Host header kept, so the claims' base URLs point
// at the proxy too). It records every `POST /swarm/v1/episodes/<id>/end` whose 2xx answer was fully
// handed to the client's socket: the ends the clients saw acknowledged, whatever their framework.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EndLedger {
  readonly url: string;
  /** Episode ids whose end was acknowledged (2xx) to the client. */
  readonly acked: Set<string>;
  /** End requests answered with an error status, or whose answer never reached the client. */
  readonly unacked: { episodeId: string; status: number | null }[];
  close(): Promise<void>;
}

const END_PATH = /^\/swarm\/v1\/episodes\/([^/?]+)\/end(?:\?|$)/;

export async function startEndLedger(target: string): Promise<EndLedger> {
  const up = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const acked = new Set<string>();
  const unacked: { episodeId: string; status: number | null }[] = [];
  const server = http.createServer((req, res) => {
    const m = req.method === 'POST' ? END_PATH.exec(req.url ?? '') : null;
    const episodeId = m ? decodeURIComponent(m[1]!) : null;
    const fwd = http.request(
      { host: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.headers, agent },
      (ur) => {
        res.writeHead(ur.statusCode ?? 502, ur.headers);
        ur.pipe(res);
        if (episodeId !== null) {
          const status = ur.statusCode ?? null;
          res.once('finish', () =>
            status !== null && status >= 200 && status < 300
              ? acked.add(episodeId)
              : unacked.push({ episodeId, status }),
          );
          res.once('close', () => !res.writableFinished && unacked.push({ episodeId, status: null }));
        }
      },
    );
    fwd.on('error', (err) => {
      if (episodeId !== null) unacked.push({ episodeId, status: null });
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `bench proxy: ${err.message}` } }));
    });
    req.pipe(fwd);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    acked,
    unacked,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      agent.destroy();
    },
  };
}
