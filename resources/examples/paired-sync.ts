// Lock-step for paired task order (the train bench's --lockstep): the clients of one index — one per
// framework — start their n-th task group together. Each marks its group n done with a file in
// AGENTJET_PAIRED_SYNC/<index>/<n>/, and starts group n + 1 once AGENTJET_PAIRED_PEERS clients have
// marked n (or after a timeout, logged: a peer that died must not hold the others for ever). Without it
// the frameworks' clients play a task a few updates apart, and the policy's drift on that task between
// their plays is noise in every paired difference (bench/framework-noise.ts). client.py mirrors it.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PairedSync {
  dir: string;
  /** Clients per index: the frameworks compared. */
  peers: number;
  timeoutMs: number;
}

/** The number a client id ends with: its index among its framework's clients (0 when none). */
export const clientIndex = (clientId: string): number => Number(/(\d+)$/.exec(clientId)?.[1] ?? 0);

export function pairedSyncFromEnv(env: NodeJS.ProcessEnv = process.env): PairedSync | null {
  const dir = env['AGENTJET_PAIRED_SYNC'];
  const peers = Number(env['AGENTJET_PAIRED_PEERS']);
  if (!dir || !(Number.isInteger(peers) && peers > 0)) return null;
  return { dir, peers, timeoutMs: 60_000 };
}

const folder = (s: PairedSync, clientId: string, n: number): string =>
  join(s.dir, String(clientIndex(clientId)), String(n));

/** Marks this client's group `n` done. */
export function markGroupDone(s: PairedSync, clientId: string, n: number): void {
  mkdirSync(folder(s, clientId, n), { recursive: true });
  writeFileSync(join(folder(s, clientId, n), clientId), '');
}

const peersDone = (s: PairedSync, clientId: string, n: number): number => {
  try {
    return readdirSync(folder(s, clientId, n)).length;
  } catch {
    return 0; // nobody has finished it yet
  }
};

/** Waits until every peer has finished group `n`: true, or false after the timeout. */
export async function awaitPeers(s: PairedSync, clientId: string, n: number, pollMs = 20): Promise<boolean> {
  const deadline = performance.now() + s.timeoutMs;
  while (peersDone(s, clientId, n) < s.peers) {
    if (performance.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  return true;
}
