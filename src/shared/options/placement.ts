// The placement and asynchronous-update options (issue #21), declared once here and spread into the
// tables of declarations.ts: where generation runs (the trainer's own process, or R rollout replicas),
// how weights reach the replicas, whether generation overlaps the update, the staleness bound and the
// off-policy correction. See docs/training-at-scale.md#rollout-replicas-and-asynchronous-updates.
import { z } from 'zod';
import { bool, intIn, numberIn, oneOf, option, text } from './spec';

const gpuList = text(z.string().regex(/^\d+(,\d+)*$/, 'comma-separated GPU indices, e.g. 2,3'));

/** Fixed at start (WORKER_OPTIONS). */
export const PLACEMENT_OPTIONS = {
  rolloutReplicas: option({
    value: intIn(0, 64),
    default: 0,
    flag: 'rollout-replicas',
    arg: 'R',
    label: 'Rollout replicas',
    help:
      'R > 0: generation runs on R inference-only engine processes, weights pushed after every update; ' +
      '0: in the trainer',
  }),
  rolloutDevices: option({
    value: gpuList,
    flag: 'rollout-devices',
    arg: '2,3',
    help: 'the GPUs of the rollout replicas, one each (round robin)',
    unset: 'CPU; on CUDA the GPUs after the train devices',
  }),
  trainDevices: option({
    value: gpuList,
    flag: 'train-devices',
    arg: '0,1',
    help: 'the GPUs of the trainer group (its ranks; --engine-devices names the same)',
    unset: '--engine-devices, else all',
  }),
  replicaThreads: option({
    value: intIn(1, 256),
    flag: 'replica-threads',
    arg: 'N',
    help: 'CPU threads of each rollout replica',
    unset: 'the CPU count shared out between the trainer and the replicas',
  }),
  rdzvEndpoint: option({
    value: text(z.string().regex(/^[\w.-]+:\d{1,5}$/, 'host:port, e.g. 10.0.0.5:29400')),
    flag: 'rdzv-endpoint',
    arg: 'HOST:PORT',
    help:
      "with --nnodes > 1: the trainer group's rendezvous (torchrun, static; node 0 listens); otherwise where " +
      'the trainer listens for replicas to join the weight sync',
    unset: '127.0.0.1 (every interface with --remote-replicas), any free port',
  }),
  remoteReplicas: option({
    value: bool,
    default: false,
    flag: 'remote-replicas',
    help:
      'take rollout replicas from other hosts: `agentjet replica --worker URL` there starts engines that dial ' +
      'in (the --replica-token, or the admin token) and join the routing and the weight sync',
  }),
  syncHost: option({
    value: text(z.string().regex(/^[\w.:-]{1,253}$/, 'a host name or IP address')),
    flag: 'sync-host',
    arg: 'HOST',
    help: "the address replica hosts reach this machine's weight-sync store at (NAT, tunnels)",
    unset: 'the host name they dialled the worker by',
  }),
  nnodes: option({
    value: intIn(1, 64),
    default: 1,
    flag: 'nnodes',
    arg: 'N',
    help:
      'hosts the trainer group spans: each runs --engine-procs ranks (torchrun static rendezvous at ' +
      '--rdzv-endpoint); node 0 runs the worker, the others `agentjet worker --node-rank i` with the same flags',
  }),
  nodeRank: option({
    value: intIn(0, 63),
    default: 0,
    flag: 'node-rank',
    arg: 'I',
    help: "this host's place among --nnodes: 0 runs the worker; I > 0 only starts its engine ranks and keeps them up",
  }),
  async: option({
    value: bool,
    default: false,
    flag: 'async',
    label: 'Asynchronous updates',
    help:
      'replicas keep generating while the trainer steps (needs --rollout-replicas); ' +
      'staleness bounded by --staleness-bound',
  }),
  inflight: option({
    value: oneOf(['swap', 'finish']),
    default: 'swap',
    flag: 'inflight',
    arg: 'swap|finish',
    label: 'In-flight generations',
    help:
      'when new weights reach a replica: swap them in between decode steps (swap), ' +
      'or let running generations finish first (finish)',
  }),
  syncTimeoutS: option({
    value: intIn(1, 3600),
    default: 300,
    flag: 'sync-timeout',
    arg: 'S',
    help: 'seconds a weight sync or a replica join may take before it fails (the replica is restarted)',
  }),
};

/** Changeable at run time (TRAINING_OPTIONS). */
export const ASYNC_TRAINING_OPTIONS = {
  stalenessBound: option({
    value: intIn(1, 1000),
    default: 1,
    flag: 'staleness-bound',
    arg: 'K',
    label: 'Staleness bound',
    help: 'async: a generation waits while its replica is K or more weight versions behind the trainer',
  }),
  correction: option({
    value: oneOf(['none', 'decoupled', 'tis', 'mis']),
    default: 'none',
    flag: 'correction',
    arg: 'none|decoupled|tis|mis',
    label: 'Off-policy correction',
    help: 'behaviour-vs-trainer correction: decoupled PPO, truncated IS, masked IS (IcePop); also in sync mode',
  }),
  correctionCap: option({
    value: numberIn(z.number().min(1)),
    default: 2,
    flag: 'correction-cap',
    arg: 'C',
    help: 'tis: truncate the importance weight at C; decoupled: mask tokens above C',
  }),
  correctionLow: option({
    value: numberIn(z.number().min(0).max(1)),
    default: 0.5,
    flag: 'correction-low',
    arg: 'L',
    help: 'mis: mask tokens whose importance weight is below L',
  }),
  correctionHigh: option({
    value: numberIn(z.number().min(1)),
    default: 2,
    flag: 'correction-high',
    arg: 'H',
    help: 'mis: mask tokens whose importance weight is above H',
  }),
};
