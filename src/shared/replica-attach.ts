// The contract between a worker and a rollout replica host (`agentjet replica`, issue #21 §2: a second
// box adds replicas). The replica host dials `GET /swarm/v1/replicas/attach?name=<host>/<i>` (a
// WebSocket, replica or admin token, the model's identity files in a header) once per replica engine; refusals
// are HTTP answers before the upgrade (`ErrorBodySchema`). After it, every WebSocket message is one
// engine frame as JSON text — requests from the worker, answers and deltas from the replica's engine
// (engine-protocol.ts), exactly what a local engine process speaks over stdio. The close codes below
// say why a socket ended. docs/training-at-scale.md#rollout-replicas-on-other-hosts.

/** Header carrying `name=sha256-prefix;…` of the replica host's model identity files. */
export const MODEL_FILES_HEADER = 'x-agentjet-model-files';

/** A replica's name: `<host name>/<index>`, letters, digits and `._:-` in the host name. */
export const REPLICA_NAME = /^[\w.:-]{1,64}\/\d{1,3}$/;

/** The most replicas from other hosts one worker takes. */
export const MAX_REMOTE_REPLICAS = 64;

/** The largest engine frame a replica socket carries (a long prompt's ids, a batch's generations). */
export const REPLICA_MAX_FRAME_BYTES = 64 * 1024 * 1024;

/** The engine methods a worker may send to a replica host (anything else is answered `not_for_replicas`). */
export const REPLICA_METHODS: readonly string[] = [
  'info',
  'load',
  'configure',
  'generate',
  'cancel',
  'cache_stats',
  'decode',
  'sync_join',
  'sync_pull',
  'sync_leave',
];

/** Close codes of a replica socket (4000–4999: the application's range). */
export const ReplicaClose = {
  /** The worker closes: it stops, or it released the replica; the host reconnects (with backoff). */
  released: 1001,
  /** The replica host's engine exited; the host starts a fresh one and reconnects. */
  engineExited: 4000,
  /** Another attach took this name; this one stops (two hosts must not share a name). */
  superseded: 4001,
  /** The worker refuses this replica for good (its model is not the trainer's); the host stops it. */
  refused: 4009,
  /** A message that is not an engine frame; the socket ends (the replica counts as dead). */
  badFrame: 4002,
} as const;
