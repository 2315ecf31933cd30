// Group judges, the pure half (docs/learned-rewards.md, "Group judges"): the prompt that shows a judge
// model the rollouts of one task group with a rubric and asks for a relative score per rollout in
// [0, 1] (RULER-style: rank them against each other, not against an absolute bar), and the parsing of
// its reply. The SDK's GroupJudge (src/sdk/group-judge.ts) sends it and caches the scores.
import { z } from 'zod';
import type { ChatMessage } from './chat';

export interface JudgedRollout {
  messages: readonly ChatMessage[];
}

/** The judge's instructions; the rubric says what "better" means for the task. */
export const JUDGE_SYSTEM = [
  'You are an impartial judge of an AI agent. You are shown several trajectories that attempted the same task,',
  'and a rubric. Compare them with each other and give each a score between 0 and 1: better trajectories get',
  'higher scores; scores are relative to this group (the best need not get 1, the worst need not get 0), and',
  'equally good trajectories get equal scores.',
  'Reply with JSON only, no other text, in this form:',
  '{"scores": [{"trajectory_id": "1", "explanation": "one short sentence", "score": 0.7}, ...]}',
  'with one entry per trajectory, in order.',
].join('\n');

/** Characters of one message's content shown to the judge (the rest is cut, marked). */
export const MAX_CONTENT_CHARS = 4000;

function messageText(m: ChatMessage): string {
  const content = m.content ?? '';
  const shown = content.length > MAX_CONTENT_CHARS ? `${content.slice(0, MAX_CONTENT_CHARS)}… [cut]` : content;
  const calls = (m.tool_calls ?? []).map((c) => `\n  [tool call] ${c.function.name}(${c.function.arguments})`);
  return `[${m.role}] ${shown}${calls.join('')}`;
}

/** The judge's messages for one group: its instructions, then the rubric and every trajectory. */
export function judgePrompt(rubric: string, rollouts: readonly JudgedRollout[]): ChatMessage[] {
  const blocks = rollouts.map(
    (r, i) => `<trajectory id="${i + 1}">\n${r.messages.map(messageText).join('\n')}\n</trajectory>`,
  );
  return [
    { role: 'system', content: JUDGE_SYSTEM },
    { role: 'user', content: `Rubric:\n${rubric}\n\n${blocks.join('\n\n')}` },
  ];
}

const JudgeReplySchema = z.object({
  scores: z.array(
    z.object({
      trajectory_id: z.union([z.string(), z.number()]).transform(String),
      explanation: z.string().optional(),
      score: z.number().min(0).max(1),
    }),
  ),
});

/** The first balanced `{…}` of `text` (models wrap JSON in prose or code fences), or null. */
export function firstJsonObject(text: string): string | null {
  const start = text.indexOf('{');
  if (start < 0) return null;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return null;
}

/** The scores of `n` trajectories in order, from a judge's reply; throws saying what is wrong. */
export function parseJudgeReply(text: string, n: number): number[] {
  const json = firstJsonObject(text);
  if (json === null) throw new Error('the judge replied without a JSON object');
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new Error('the judge replied with malformed JSON');
  }
  const parsed = JudgeReplySchema.safeParse(value);
  if (!parsed.success) throw new Error(`the judge's JSON is not {"scores": [{trajectory_id, score in [0, 1]}]}`);
  const byId = new Map(parsed.data.scores.map((s) => [s.trajectory_id, s.score]));
  return Array.from({ length: n }, (_, i) => {
    const score = byId.get(String(i + 1));
    if (score === undefined) throw new Error(`the judge gave no score for trajectory ${i + 1} of ${n}`);
    return score;
  });
}
