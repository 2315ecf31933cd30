// The task-environment contract for example tasks: pure, synchronous, data in and data out.
// A client runs an episode by asking a policy for assistant turns and letting the env answer.
import type { ChatMessage, Tool } from './chat';

/** What the env does after an assistant turn: append messages and go on, or end the episode. */
export type EnvStep =
  | { kind: 'continue'; messages: ChatMessage[] }
  /** `messages` (optional) are appended to the history but no further turn is asked for. */
  | { kind: 'done'; messages?: ChatMessage[] };

export interface TaskScore {
  reward: number;
  success: boolean;
  metrics: Record<string, number>;
}

export interface TaskEnv<T> {
  readonly name: string;
  /** Tools offered to the policy; empty when the task has none. */
  readonly tools: Tool[];
  /** Upper bound on assistant turns per episode. */
  readonly maxTurns: number;
  /** The opening messages (system prompt, user request). */
  initialMessages(task: T): ChatMessage[];
  /** Reacts to `assistant`, the newest turn; `history` is everything before it. */
  respond(task: T, history: ChatMessage[], assistant: ChatMessage): EnvStep;
  /** Scores a whole episode's messages. */
  score(task: T, history: ChatMessage[]): TaskScore;
}

/** The assistant messages of a history, in order. */
export const assistantTurns = (history: readonly ChatMessage[]): ChatMessage[] =>
  history.filter((m) => m.role === 'assistant');

/** Dataset splits: RL and warm-start data come from `train`; `eval` is held out. */
export type Split = 'train' | 'eval';
export const SPLITS: readonly Split[] = ['train', 'eval'];
