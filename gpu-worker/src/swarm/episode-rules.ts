// The rules that refuse episode work, as pure functions of state: why a claim is refused in each
// worker state (with a retry hint), which episode a key names or why not, whether an episode
// still takes calls, an end or an abort, and what result an end may report (whichever route it
// came by). Each answer is the client's error (HTTP status + code).
import { z } from 'zod';
import { EndRequestSchema, type EndRequest, type WorkerState } from '../../../src/shared/swarm-protocol';
import { badRequest, conflict, unavailable, type SwarmError } from '../errors';
import type { Episode } from './episodes';
import { keyRefusal, verifyEpisodeKey } from './keys';

// A claim that arrives during a synchronous update is held until the update ends instead of refused
// (Swarm.claimHeld): a refused claim retries after a jittered backoff, and with updates back to back
// the gap between two is a few milliseconds, so a client's retries can keep landing inside updates
// (one client was refused 14 times in 117 s and its episodes failed). A held claim is answered in the
// same turn the state changes, before the trainer can start the next update (that waits for a
// setImmediate). Bounded in time (then the usual 503 with a retry hint) and in count (claims over it
// are refused at once).

/** How long a claim waits for an update to end before it is refused (well under the SDKs' 60 s request timeout). */
export const CLAIM_HOLD_MS = 30_000;
/** The most claims held at once; more are refused at once. */
export const MAX_HELD_CLAIMS = 1024;

/** Why a claim is refused in a state other than `running` (a 503 with the seconds to wait). */
export function claimRefusal(state: Exclude<WorkerState, 'running'>, expectedUpdateS: number): SwarmError {
  const hints: Record<Exclude<WorkerState, 'running'>, [string, string, number]> = {
    updating: ['updating', 'the policy is being updated; claim again after the update', expectedUpdateS],
    paused: ['paused', 'training is paused by the operator; claim again later', 5],
    recovering: ['recovering', 'the engine is restarting from the last checkpoint; claim again shortly', 5],
    starting: ['starting', 'the worker is starting', 5],
    checkpointing: ['checkpointing', 'a checkpoint is being written', 2],
    stopping: ['stopping', 'the worker is shutting down', 30],
    failed: ['engine_failed', 'the engine could not be restarted; the worker needs attention', 30],
  };
  return unavailable(...hints[state]);
}

/** The episode id a key names, or the 401 that says why it names none. */
export function episodeIdOfKey(secret: Buffer, key: string): string {
  const check = verifyEpisodeKey(secret, key);
  if (check.ok) return check.episodeId;
  throw keyRefusal(check.reason);
}

/** Throws the 409 that says why an episode no longer takes calls, an end or an abort. */
export function assertOpen(ep: Episode): void {
  switch (ep.status) {
    case 'open':
      return;
    case 'ending':
    case 'ended':
      throw conflict('episode_ended', `episode ${ep.id} has ended; claim a new episode`);
    case 'aborted':
      throw conflict(
        'episode_aborted',
        `episode ${ep.id} was aborted${ep.reason ? ` (${ep.reason})` : ''}; claim a new episode`,
      );
    case 'expired':
      throw conflict(
        'episode_expired',
        `episode ${ep.id} expired after ${Math.round(ep.timeoutMs / 1000)} s without activity; claim a new episode`,
      );
  }
}

/**
 * An end's result as every route that ends an episode must give it (the native route, AgentJet's
 * `end_episode`): a task id, a finite reward within ±MAX_ABS_REWARD, finite metrics; else a 400.
 */
export function validEnd(end: EndRequest): EndRequest {
  const parsed = EndRequestSchema.safeParse(end);
  if (parsed.success) return parsed.data;
  throw badRequest('invalid_request', z.prettifyError(parsed.error).slice(0, 1500));
}
