// The reward each fork continuation would get if the episode ended there (docs/inner-loop.md):
// the run's reward code over the forked call's messages — with the edited last tool/user message
// when the fork edited it — plus the continuation as the assistant's reply, through reward try's
// child-process runner (runner.ts: time limit per conversation, never in the workbench process).
// The recorded turn (its own prompt and reply) is scored too, so they compare under one rule.
import { dirname, join } from 'node:path';
import type { ChatMessage } from '../../shared/chat';
import type { ForkRewards } from '../../shared/inner-loop';
import type { Timeline } from '../../shared/timeline/index';
import { assistantMessageFromText } from '../../shared/tool-calls';
import { loadTaskRows } from './reward-try';
import { RewardLoadError, runReward, type RunRewardOptions } from './runner';

export interface ForkRewardOptions extends Omit<RunRewardOptions, 'file'> {
  /** The reward file, or null when the run has none. */
  file: string | null;
  timeline: Timeline;
  taskId: string | null;
  edit?: { content: string } | undefined;
  continuations: readonly { text: string }[];
  /** JSONL files of task rows; default data/{train,eval}.jsonl beside the reward file. */
  taskFiles?: string[];
}

/** The call's prompt messages with the last tool or user message's content replaced by the edit. */
export function editedMessages(messages: readonly ChatMessage[], edit: { content: string } | undefined): ChatMessage[] {
  const out = messages.slice();
  if (!edit) return out;
  for (let i = out.length - 1; i >= 0; i--) {
    const m = out[i]!;
    if (m.role === 'tool' || m.role === 'user') {
      out[i] = { ...m, content: edit.content };
      break;
    }
  }
  return out;
}

export async function forkRewards(o: ForkRewardOptions): Promise<ForkRewards> {
  if (o.file === null)
    return { file: null, recorded: null, continuations: [], note: 'this run has no reward file (reward.*)' };
  const rows = loadTaskRows(o.taskFiles ?? ['train', 'eval'].map((s) => join(dirname(o.file!), 'data', `${s}.jsonl`)));
  const row = o.taskId !== null ? rows.get(o.taskId) : undefined;
  const task = row ?? { id: o.taskId };
  const prompt = editedMessages(o.timeline.messages, o.edit);
  // The recorded turn as it happened (its own prompt and reply), then each continuation after the (edited) prompt.
  const items = [
    { task, messages: [...o.timeline.messages, o.timeline.output] },
    ...o.continuations.map((c, i) => ({ task, messages: [...prompt, assistantMessageFromText(c.text, `fork${i}`)] })),
  ];
  const note = row === undefined ? `no task row for ${o.taskId ?? 'this episode'}: the reward saw only {id}` : null;
  try {
    const [recorded, ...continuations] = await runReward(items, { ...o, file: o.file });
    return { file: o.file, recorded: recorded ?? null, continuations, note };
  } catch (err) {
    if (!(err instanceof RewardLoadError)) throw err;
    return { file: o.file, recorded: null, continuations: [], note: `the reward could not run: ${err.message}` };
  }
}
