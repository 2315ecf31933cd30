// Plays a task folder's client once in eval mode (AGENTJET_SPLIT=eval, src/sdk/task.ts) against a
// worker and reads back what happened from the worker itself (admin API): every episode the client
// claimed, ended or aborted with its reward or reason, and on request the transcript of an episode
// (the messages of its last call and the reply). Used by campaigns to evaluate task folders and by
// `agentjet task check` for its smoke episodes.
import { join } from 'node:path';
import type { ChatMessage } from '../../shared/chat';
import type { EpisodeSummary } from '../../shared/swarm-protocol';
import { ClientRunner, formatCompileMessage, type CompileMessage } from '../runner/index';
import { WorkerClient } from '../worker-client';

export interface TaskWorker {
  url: string;
  adminToken: string;
  joinToken: string;
}

export interface PlayedEpisodes {
  /** The client's own episodes, oldest first. */
  episodes: EpisodeSummary[];
  /** The client's exit: code, and its last output lines. */
  exitCode: number | null;
  signal: string | null;
  output: string[];
  compileErrors: CompileMessage[];
  timedOut: boolean;
}

export async function playTaskEpisodes(o: {
  entry: string;
  worker: TaskWorker;
  episodes: number;
  clientId: string;
  nodePaths: string[];
  cacheDir?: string;
  concurrency?: number;
  timeoutMs?: number;
}): Promise<PlayedEpisodes> {
  const output: string[] = [];
  const runner = new ClientRunner({
    name: o.clientId,
    serverUrl: o.worker.url,
    joinToken: o.worker.joinToken,
    count: 1,
    restart: 'never',
    nodePaths: o.nodePaths,
    ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}),
    env: {
      AGENTJET_SPLIT: 'eval',
      AGENTJET_MAX_EPISODES: String(o.episodes),
      AGENTJET_CONCURRENCY: String(o.concurrency ?? 2),
    },
  });
  runner.on('client:log', (l) => {
    output.push(l.line);
    if (output.length > 200) output.shift();
  });
  let exit: { code: number | null; signal: string | null } | null = null;
  const exited = new Promise<void>((resolve) =>
    runner.on('client:exited', (e) => {
      exit = { code: e.code, signal: e.signal };
      resolve();
    }),
  );
  let timedOut = false;
  try {
    const started = await runner.start({ entry: o.entry });
    if (!started.ok)
      return { episodes: [], exitCode: null, signal: null, output, compileErrors: started.errors, timedOut: false };
    const timeout = new Promise<void>((r) =>
      setTimeout(() => {
        timedOut = true;
        r();
      }, o.timeoutMs ?? 300_000).unref(),
    );
    await Promise.race([exited, timeout]);
  } finally {
    await runner.dispose();
  }
  const clientId = `${o.clientId}-0`;
  const list = await new WorkerClient(o.worker.url, o.worker.adminToken, { timeoutMs: 30_000 }).call('episodes', {
    query: { clientId, limit: Math.max(10, o.episodes * 4) },
  });
  const done: { code: number | null; signal: string | null } = exit ?? { code: null, signal: null };
  return {
    episodes: [...list.episodes].reverse(),
    exitCode: done.code,
    signal: done.signal,
    output,
    compileErrors: [],
    timedOut,
  };
}

/** The conversation of an episode as the worker recorded it: its last call's messages and reply. */
export async function episodeTranscript(worker: TaskWorker, episodeId: string): Promise<ChatMessage[]> {
  const client = new WorkerClient(worker.url, worker.adminToken, { timeoutMs: 30_000 });
  const d = await client.call('episode', { params: { id: episodeId } });
  const last = d.timelines.at(-1);
  return last ? [...last.messages, last.output] : [];
}

/** Success rate and mean reward of played eval episodes; aborted or missing ones count as failures. */
export function evalFigures(
  played: PlayedEpisodes,
  wanted: number,
): { episodes: number; successRate: number; rewardMean: number; failed: number } {
  const ended = played.episodes.filter((e) => e.kind === 'eval' && e.status === 'ended');
  const n = Math.max(wanted, 1);
  return {
    episodes: wanted,
    failed: wanted - ended.length,
    successRate: ended.filter((e) => e.success === true).length / n,
    rewardMean: ended.reduce((s, e) => s + (e.reward ?? 0), 0) / n,
  };
}

export const describeCompileErrors = (errors: readonly CompileMessage[]): string =>
  errors.map(formatCompileMessage).join('\n');

/** Where the client runner finds packages for a task folder outside the repository. */
export const taskNodePaths = (repoRoot: string): string[] => [join(repoRoot, 'node_modules')];
