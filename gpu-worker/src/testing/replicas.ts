// A rollout replica record for tests: an engine behind its own Admission gate, not joined to any
// sync link yet and at no weight version (as placement.ts makes them before the first sync).
import { Admission } from '../engine/admission';
import { BusyClock } from '../engine/busy-clock';
import type { EngineHost } from '../engine/engine-host';
import type { Replica } from '../engine/replicas/replica-router';

export const testReplica = (
  index: number,
  engine: EngineHost,
  o: { host?: string; maxInFlight?: number } = {},
): Replica => ({
  index,
  engine,
  gate: new Admission(engine, o.maxInFlight !== undefined ? { maxInFlight: o.maxInFlight } : {}),
  busy: new BusyClock(0),
  tokens: 0,
  calls: 0,
  link: null,
  joins: 0,
  version: -1,
  ...(o.host !== undefined ? { host: o.host } : {}),
});
