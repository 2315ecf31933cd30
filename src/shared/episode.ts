// Runs one episode of a TaskEnv against a policy: ask, append, let the env answer, until done
// or maxTurns; then score. One generator core drives both the async and the sync runner.
import type { ChatMessage, Tool } from './chat';
import type { TaskEnv, TaskScore } from './task';

export type Policy = (messages: ChatMessage[], tools: Tool[]) => Promise<ChatMessage>;
export type SyncPolicy = (messages: ChatMessage[], tools: Tool[]) => ChatMessage;

export interface EpisodeOptions {
  /** Overrides env.maxTurns (the smaller of the two applies). */
  maxTurns?: number;
}

export interface EpisodeResult extends TaskScore {
  messages: ChatMessage[];
  /** Assistant turns taken. */
  turns: number;
  /** True when the turn limit, not the env, ended the episode. */
  truncated: boolean;
}

/** Yields each prompt (a copy of the history), receives the assistant turn, returns the result. */
function* episodeSteps<T>(
  env: TaskEnv<T>,
  task: T,
  opts: EpisodeOptions,
): Generator<ChatMessage[], EpisodeResult, ChatMessage> {
  const limit = Math.min(env.maxTurns, opts.maxTurns ?? env.maxTurns);
  const messages = env.initialMessages(task);
  let turns = 0;
  let done = false;
  while (!done && turns < limit) {
    const assistant = yield [...messages];
    if (assistant.role !== 'assistant')
      throw new Error(`policy returned a '${assistant.role}' message, expected 'assistant'`);
    turns++;
    const step = env.respond(task, [...messages], assistant);
    messages.push(assistant, ...(step.messages ?? []));
    done = step.kind === 'done';
  }
  return { messages, turns, truncated: !done, ...env.score(task, messages) };
}

export async function runEpisode<T>(
  env: TaskEnv<T>,
  task: T,
  policy: Policy,
  opts: EpisodeOptions = {},
): Promise<EpisodeResult> {
  const steps = episodeSteps(env, task, opts);
  let next = steps.next();
  while (!next.done) next = steps.next(await policy(next.value, env.tools));
  return next.value;
}

/** The same loop for synchronous (scripted) policies, e.g. transcript generators. */
export function runEpisodeSync<T>(
  env: TaskEnv<T>,
  task: T,
  policy: SyncPolicy,
  opts: EpisodeOptions = {},
): EpisodeResult {
  const steps = episodeSteps(env, task, opts);
  let next = steps.next();
  while (!next.done) next = steps.next(policy(next.value, env.tools));
  return next.value;
}
