// What vibe training tells the LLM: the task-folder contract and the SDK it writes against, with
// the shipped template task (resources/skills/agentjet-task/template) as a complete working
// example; and how a failed check is fed back. The LLM answers through one tool that writes files.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { ChatMessage } from '../../shared/chat';
import type { TaskVerdict } from '../../shared/task-draft';
import type { LlmTool } from '../llm/llm-client';
import { TASK_FILES } from './task-check';

export const templateDir = (repoRoot: string): string =>
  join(repoRoot, 'resources', 'skills', 'agentjet-task', 'template');

export const WriteFilesArgs = z
  .object({
    files: z
      .array(z.object({ path: z.enum(TASK_FILES), content: z.string().max(400_000) }))
      .min(1)
      .max(4),
    note: z.string().max(4000).optional(),
  })
  .strict();

export const WRITE_FILES_TOOL: LlmTool<z.infer<typeof WriteFilesArgs>> = {
  name: 'write_task_files',
  description: `Write (replace) files of the task folder: ${TASK_FILES.join(', ')}. Give each file's full content.`,
  parameters: {
    type: 'object',
    additionalProperties: false,
    required: ['files'],
    properties: {
      files: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['path', 'content'],
          properties: { path: { type: 'string', enum: [...TASK_FILES] }, content: { type: 'string' } },
        },
      },
      note: { type: 'string', description: 'what you changed and why' },
    },
  },
  args: WriteFilesArgs,
};

export function systemPrompt(repoRoot: string): string {
  const t = templateDir(repoRoot);
  const read = (f: string): string => readFileSync(join(t, f), 'utf8');
  const firstRows = (f: string): string => read(f).split('\n').slice(0, 3).join('\n');
  return `You write training tasks for AgentJet, an agentic-RL trainer. A task is a folder with exactly these files:
- client.ts: a swarm client. It loads the dataset and calls runTaskClient({ train, eval, play }) from
  'agentjet-workbench/sdk'. play(task, { baseUrl, apiKey, model, signal }) runs ONE episode: it talks to the policy
  through the official 'openai' package (new OpenAI({ baseURL: baseUrl, apiKey })), passes { signal } to every call,
  and returns reward(task, messages). Multi-turn tasks loop: call the model, let the task's environment answer, call
  again (a few turns at most).
- reward.ts: pure code (no I/O). Exports parseTask(raw: unknown): Task (throws on a bad row, e.g. a zod schema's
  parse), reward(task, messages): { reward: number; success: boolean; metrics: Record<string, number> }, any
  constants the client needs (a system prompt), and rewardExamples: at least two { task, messages, reward } — a right
  answer scoring high and a wrong one scoring low — which are checked.
- data/train.jsonl and data/eval.jsonl: one JSON task per line, each with a unique string "id" (prefix it with the
  task's name) and the fields parseTask expects. At least 30 train rows and 8 eval rows; eval rows are held out (never
  in train).
Imports allowed: 'agentjet-workbench/sdk', 'openai', 'zod', 'node:url', 'node:fs', and './reward'. TypeScript is strict.
The policy is a small model: keep prompts short, answers checkable (e.g. a final line "#### <answer>"), and give partial
credit only when it helps learning. Write the files with the write_task_files tool (full contents), then stop.

A complete working example (a sum-of-digits task):
--- client.ts
${read('client.ts')}
--- reward.ts
${read('reward.ts')}
--- data/train.jsonl (first rows)
${firstRows('data/train.jsonl')}
`;
}

export function describeRequest(description: string): string {
  return `Write the task folder for this task:\n\n${description}`;
}

/** The failures of a check as the next user message: what failed and where, with transcripts of failing episodes. */
/** One message of a failing episode's transcript, as the feedback shows it. */
function transcriptLine(m: ChatMessage): string {
  const calls = m.tool_calls?.length ? ` [tool calls: ${m.tool_calls.map((c) => c.function.name).join(', ')}]` : '';
  return `    ${m.role}: ${(m.content ?? '').slice(0, 300)}${calls}`;
}

export function feedback(v: TaskVerdict, maxChars = 12_000): string {
  const lines = [`\`agentjet task check\` failed. Fix every problem below and write the changed files again.`];
  for (const f of v.failures) {
    const at = f.file ? `${f.file}${f.line ? `:${f.line}${f.column ? `:${f.column}` : ''}` : ''}: ` : '';
    lines.push(`- [${f.check}] ${at}${f.message}`);
    if (f.transcript?.length)
      lines.push(`  transcript of episode ${f.episodeId}:\n${f.transcript.map(transcriptLine).join('\n')}`);
  }
  const text = lines.join('\n');
  return text.length > maxChars ? `${text.slice(0, maxChars)}\n… (more failures cut)` : text;
}
