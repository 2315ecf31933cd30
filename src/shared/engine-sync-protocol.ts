// The weight-sync frames between a trainer engine and its rollout replicas (issue #21; PROTOCOL.md
// "Weight sync"): the trainer opens a rendezvous store, each replica joins a link with it, and after
// every update the worker has the trainer push and each replica pull at once.
import { z } from 'zod';

const Int = z.number().int();

export const SyncOpenResultSchema = z.object({ host: z.string(), port: Int });
export const SyncJoinResultSchema = z.object({ link: z.string(), rank: Int });
export const SyncLeaveResultSchema = z.object({ left: z.boolean() });
export const SyncPushResultSchema = z.object({
  weightVersion: Int,
  ms: z.number(),
  pushed: z.array(z.object({ link: z.string(), bytes: Int, buckets: Int, tensors: Int, ms: z.number() })),
  failed: z.array(z.object({ link: z.string(), message: z.string() })),
});
export type SyncPushResult = z.infer<typeof SyncPushResultSchema>;
export const SyncPullResultSchema = z.object({
  weightVersion: Int,
  ms: z.number(),
  applyMs: z.number(),
  tensors: Int,
  bytes: Int,
  /** Generations running on the replica when the new weights were swapped in. */
  running: Int,
});
export type SyncPullResult = z.infer<typeof SyncPullResultSchema>;

export interface SyncParams {
  sync_open: { host?: string; port?: number; timeoutS?: number };
  sync_join: { link: string; rank: 0 | 1; host?: string; port?: number; timeoutS?: number };
  sync_leave: { link: string };
  sync_push: { links: string[]; bucketBytes?: number };
  sync_pull: { link: string; inflight?: 'swap' | 'finish'; bucketBytes?: number };
}

export const syncMethods = {
  sync_open: { result: SyncOpenResultSchema },
  sync_join: { result: SyncJoinResultSchema },
  sync_leave: { result: SyncLeaveResultSchema },
  sync_push: { result: SyncPushResultSchema },
  sync_pull: { result: SyncPullResultSchema },
} as const;
