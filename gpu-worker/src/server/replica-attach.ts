// `GET /swarm/v1/replicas/attach` (WebSocket, the replica token or the admin token): where `agentjet replica`
// hosts dial in, one socket per replica engine (src/shared/replica-attach.ts). The replica token is good
// here and nowhere else (issue #21: a replica host need not hold the admin's powers). Everything is checked
// before the upgrade — the token, that this worker takes remote replicas at all, the replica's name and its
// model's identity files — and refused with an HTTP answer the host reports; an accepted socket goes to
// RemoteReplicas (engine/replicas/remote-replicas.ts), which carries engine frames over it.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { MODEL_FILES_HEADER, REPLICA_MAX_FRAME_BYTES } from '../../../src/shared/replica-attach';
import { workerRoutes } from '../../../src/shared/worker-routes';
import type { RemoteReplicas } from '../engine/replicas/remote-replicas';
import { conflict } from '../errors';
import type { TokenMatcher } from '../swarm/keys';
import { presentedToken } from './auth';
import { admitsAdmin, refuseUpgrade } from './upgrades';

export const REPLICA_ATTACH_PATH = workerRoutes.replicaAttach.path;

export class ReplicaAttachServer {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: REPLICA_MAX_FRAME_BYTES });

  constructor(
    /** null: this worker takes no replicas from other hosts. */
    private readonly remote: RemoteReplicas | null,
    private readonly matcher: TokenMatcher,
    /** The replica token's matcher (this endpoint's alone), or null: the worker has no replica token. */
    private readonly replicaMatcher: TokenMatcher<'replica'> | null = null,
  ) {}

  /** The upgrade handler of REPLICA_ATTACH_PATH (upgrades.ts routes it here). */
  readonly upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): void => {
    if (!this.admits(req, socket)) return;
    const remote = this.remote;
    if (!remote)
      return refuseUpgrade(
        socket,
        conflict(
          'remote_replicas_off',
          'this worker takes no rollout replicas from other hosts: start it with --remote-replicas true',
        ),
      );
    const name = url.searchParams.get('name');
    const files = req.headers[MODEL_FILES_HEADER];
    const refused = remote.refusal(name, typeof files === 'string' ? files : undefined);
    if (refused || name === null) return refuseUpgrade(socket, refused ?? conflict('bad_replica_name', 'no name'));
    const storeHost = remote.storeHostFor(req.headers.host);
    this.wss.handleUpgrade(req, socket, head, (ws) => remote.attach(name, ws, storeHost));
  };

  /** The replica token admits; anything else is checked (and refused) as every admin upgrade is. */
  private admits(req: IncomingMessage, socket: Duplex): boolean {
    const token = presentedToken(req.headers);
    if (token !== null && this.replicaMatcher?.match(token) === 'replica') return true;
    return admitsAdmin(req, socket, this.matcher);
  }

  async dispose(): Promise<void> {
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
