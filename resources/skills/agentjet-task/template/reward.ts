// Sum-of-digits task: the task rows, the system prompt and the reward. Pure: the reward is a
// function of the task and the episode's messages, with diagnostic metrics; `rewardExamples` are
// what `agentjet task check` runs to confirm the reward scores a right and a wrong answer as meant.
import { z } from 'zod';

export const TaskSchema = z.object({
  id: z.string().min(1),
  number: z.number().int().nonnegative(),
  answer: z.number().int(),
});
export type Task = z.infer<typeof TaskSchema>;

/** Parses one dataset row (throws with the reason when it does not fit). */
export const parseTask = (raw: unknown): Task => TaskSchema.parse(raw);

export const SYSTEM_PROMPT = 'Add up the digits of the number. End with a line "#### <sum>".';

export interface Message {
  role: string;
  content?: string | null;
}

export interface Score {
  reward: number;
  success: boolean;
  metrics: Record<string, number>;
}

/** 1 when the last assistant message ends with `#### <the right sum>`; 0 otherwise. */
export function reward(task: Task, messages: readonly Message[]): Score {
  const last = [...messages].reverse().find((m) => m.role === 'assistant');
  const lines = (last?.content ?? '').trim().split('\n');
  const match = /^####\s*(-?\d+)\s*$/.exec(lines.at(-1)?.trim() ?? '');
  const success = match !== null && Number(match[1]) === task.answer;
  return { reward: success ? 1 : 0, success, metrics: { answered: match ? 1 : 0 } };
}

/** Transcripts with the reward they must get (checked by `agentjet task check`). */
export const rewardExamples: { task: Task; messages: Message[]; reward: number }[] = [
  {
    task: { id: 'ex-1', number: 123, answer: 6 },
    messages: [
      { role: 'user', content: '123' },
      { role: 'assistant', content: '1+2+3 = 6\n#### 6' },
    ],
    reward: 1,
  },
  {
    task: { id: 'ex-2', number: 123, answer: 6 },
    messages: [
      { role: 'user', content: '123' },
      { role: 'assistant', content: '#### 7' },
    ],
    reward: 0,
  },
  {
    task: { id: 'ex-3', number: 45, answer: 9 },
    messages: [
      { role: 'user', content: '45' },
      { role: 'assistant', content: 'nine' },
    ],
    reward: 0,
  },
];
