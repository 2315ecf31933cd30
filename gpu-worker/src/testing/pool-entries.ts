// Test fixtures of the durable pool (gpu-worker/src/swarm/pool.ts): a one-call timeline, a pool entry
// around it, and journal paths in temporary folders removed after each test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TimelineSchema, type Timeline } from '../../../src/shared/timeline/index';
import type { PoolEntry } from '../swarm/pool';

/** One recorded call of `episodeId`: a 3-token prompt, a 2-token reply, at `weightVersion`. */
export function poolCall(episodeId: string, weightVersion = 0): Timeline {
  return TimelineSchema.parse({
    id: `${episodeId}/0`,
    episodeId,
    callIndex: 0,
    messages: [{ role: 'user', content: 'x' }],
    promptIds: [1, 2, 3],
    promptSpans: [
      { messageIndex: 0, role: 'user', start: 0, end: 2 },
      { messageIndex: -2, role: 'generation_prompt', start: 2, end: 3 },
    ],
    outputIds: [4, 5],
    outputLogprobs: [-1, -2],
    finishReason: 'stop',
    output: { role: 'assistant', content: 'y' },
    weightVersion,
    createdAt: 1,
  });
}

/** An ended episode of one call (task 't', reward 1 unless given), as `DurablePool.add` takes it. */
export const poolEntry = (
  id: string,
  o: { taskId?: string; reward?: number; codeVersion?: string } = {},
): Omit<PoolEntry, 'seq'> => ({
  episodeId: id,
  clientId: 'c',
  taskId: o.taskId ?? 't',
  reward: o.reward ?? 1,
  endedAt: 5,
  ...(o.codeVersion !== undefined ? { codeVersion: o.codeVersion } : {}),
  calls: [poolCall(id)],
});

/** `path()` gives a fresh journal path in its own temporary folder; `cleanup()` (afterEach) removes them. */
export function poolPaths(prefix: string): { path: () => string; cleanup: () => void } {
  const dirs: string[] = [];
  return {
    path: () => {
      const d = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(d);
      return join(d, 'pool.jsonl');
    },
    cleanup: () => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })),
  };
}
