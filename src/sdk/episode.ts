// client.episode(task, fn): claim, hand fn the OpenAI credentials and an AbortSignal, end with fn's
// reward — or abort the episode (never half-counted) when fn throws, the deadline passes or a signal
// handler stops the process.
import type { ClaimResponse, EndResponse, EpisodeKind } from '../shared/swarm-protocol';
import { EndRequestSchema } from '../shared/swarm-protocol';
import type { SwarmClient } from './client';
import { SwarmError } from './errors';
import { trackEpisode } from './inflight';

/** A task id, or any object carrying one as `id` or `taskId`. */
export type TaskRef = string | { id: string } | { taskId: string };

export interface EpisodeContext {
  /** OpenAI base URL (`…/v1`): `new OpenAI({ baseURL: baseUrl, apiKey })`. */
  baseUrl: string;
  apiKey: string;
  model: string;
  episodeId: string;
  taskId: string;
  kind: EpisodeKind;
  weightVersion: number;
  /** Fires when the deadline passes or the process is stopping; pass it to your LLM calls. */
  signal: AbortSignal;
}

export interface EpisodeResult {
  reward: number;
  success?: boolean;
  metrics?: Record<string, number>;
}

export type EpisodeFn = (ctx: EpisodeContext) => Promise<EpisodeResult> | EpisodeResult;

export interface EpisodeOptions {
  kind?: EpisodeKind;
  /** The role this episode plays when one model plays several (its REINFORCE baseline is per role). */
  role?: string;
  /** Wall-clock limit of fn; past it the signal fires and the episode is aborted. */
  deadlineMs?: number;
  /** Inactivity timeout of the episode on the server. */
  timeoutS?: number;
  /** Cancels the episode from outside (it is aborted on the server). */
  signal?: AbortSignal;
}

export interface EpisodeOutcome {
  episodeId: string;
  taskId: string;
  result: EpisodeResult;
  end: EndResponse;
}

export function taskIdOf(task: TaskRef): string {
  if (typeof task === 'string') return task;
  return 'taskId' in task ? task.taskId : task.id;
}

const reasonOf = (err: unknown): string =>
  (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 500);

export async function runEpisode(
  client: SwarmClient,
  task: TaskRef,
  fn: EpisodeFn,
  o: EpisodeOptions = {},
): Promise<EpisodeOutcome> {
  const taskId = taskIdOf(task);
  const claim: ClaimResponse = await client.claim({
    kind: o.kind ?? 'train',
    taskId,
    ...(o.role !== undefined ? { role: o.role } : {}),
    ...(o.timeoutS !== undefined ? { timeoutS: o.timeoutS } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
  });
  const ac = new AbortController();
  let aborting: Promise<void> | null = null;
  const abortOnce = (reason: string, cause: unknown): Promise<void> => {
    if (!ac.signal.aborted) ac.abort(cause);
    aborting ??= client.abort(claim.episodeId, reason, { deadlineMs: 5000 }).then(
      () => undefined,
      () => undefined,
    );
    return aborting;
  };
  const untrack = trackEpisode({
    episodeId: claim.episodeId,
    abort: (reason) =>
      abortOnce(
        reason,
        new SwarmError(499, 'aborted', 'client_stopping', `episode ${claim.episodeId} aborted: ${reason}`),
      ),
  });
  const onOuterAbort = (): void => void abortOnce(`cancelled: ${reasonOf(o.signal?.reason)}`, o.signal?.reason);
  o.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const timer =
    o.deadlineMs !== undefined
      ? setTimeout(
          () =>
            void abortOnce(
              `deadline of ${o.deadlineMs} ms passed`,
              new SwarmError(
                408,
                'timeout_error',
                'episode_deadline',
                `episode ${claim.episodeId} (task ${taskId}) passed its deadline of ${o.deadlineMs} ms`,
              ),
            ),
          o.deadlineMs,
        )
      : undefined;
  const stopped = new Promise<never>((_, reject) => {
    if (ac.signal.aborted) reject(ac.signal.reason);
    ac.signal.addEventListener('abort', () => reject(ac.signal.reason), { once: true });
  });
  stopped.catch(() => undefined);
  try {
    const ctx = contextOf(claim, taskId, ac.signal);
    let result: EpisodeResult;
    try {
      result = await Promise.race([Promise.resolve().then(() => fn(ctx)), stopped]);
    } catch (err) {
      await abortOnce(ac.signal.aborted ? reasonOf(ac.signal.reason) : `fn threw: ${reasonOf(err)}`, err);
      throw ac.signal.aborted ? ac.signal.reason : err;
    }
    // Past this point the deadline and outer signal no longer apply: the episode is being ended.
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', onOuterAbort);
    const end = await endWith(client, claim.episodeId, taskId, result, abortOnce);
    return { episodeId: claim.episodeId, taskId, result, end };
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', onOuterAbort);
    untrack();
  }
}

/** What fn is handed: the claim's credentials and model, the task and the episode's signal. */
function contextOf(claim: ClaimResponse, taskId: string, signal: AbortSignal): EpisodeContext {
  return {
    baseUrl: claim.baseUrl,
    apiKey: claim.apiKey,
    model: claim.model,
    episodeId: claim.episodeId,
    taskId,
    kind: claim.kind,
    weightVersion: claim.weightVersion,
    signal,
  };
}

/** Ends the episode with fn's result; an invalid result or a failed end aborts it instead. */
async function endWith(
  client: SwarmClient,
  episodeId: string,
  taskId: string,
  result: EpisodeResult,
  abortOnce: (reason: string, cause: unknown) => Promise<void>,
): Promise<EndResponse> {
  const body = EndRequestSchema.safeParse({ taskId, ...result });
  if (!body.success) {
    await abortOnce('invalid episode result', null);
    throw new SwarmError(
      400,
      'invalid_request_error',
      'invalid_result',
      `episode fn returned an invalid result for task ${taskId}: ${body.error.message}`,
    );
  }
  let end: EndResponse;
  try {
    end = await client.end(episodeId, body.data);
  } catch (err) {
    await abortOnce(`end failed: ${reasonOf(err)}`, err);
    throw err;
  }
  return end;
}
