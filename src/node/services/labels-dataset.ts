// The labels of a run as a reward-model dataset (the lines reward_data.py reads): each labelled
// episode's conversation (its last call's messages and output), its point label and the preferences.
// Several authors' labels of one episode (pair) are combined by majority; a tie is left out.
import type { ChatMessage } from '../../shared/chat';
import { episodeConversation, type Conversation, type DatasetLine } from '../../shared/reward-model';
import type { Label } from '../../shared/rewards-api';
import type { Timeline } from '../../shared/timeline';
import { pairKey } from '../store/rewards-types';

/** An episode's conversation as the reward model reads it; null without a recorded call. */
export function conversationFromTimelines(timelines: readonly Timeline[]): Conversation | null {
  const last = [...timelines].sort((a, b) => a.callIndex - b.callIndex || a.createdAt - b.createdAt).at(-1);
  if (!last) return null;
  const messages: ChatMessage[] = episodeConversation([...last.messages, last.output]);
  return messages.length > 0 ? { messages, tools: last.tools } : null;
}

export interface DatasetPlan {
  /** Point label per episode (1 good, 0 bad), by majority. */
  points: Map<string, 0 | 1>;
  /** Preferences as [chosen, rejected], by majority. */
  pairs: [string, string][];
  /** Ties between authors, left out. */
  ties: number;
}

/** Combines the labels by majority (pure). */
export function planDataset(labels: readonly Label[]): DatasetPlan {
  const votes = new Map<string, number>();
  const pairVotes = new Map<string, { a: string; b: string; n: number }>();
  for (const l of labels) {
    if (l.kind === 'prefer' && l.otherEpisodeId !== null) {
      const key = pairKey(l.episodeId, l.otherEpisodeId);
      const [a, b] = l.episodeId < l.otherEpisodeId ? [l.episodeId, l.otherEpisodeId] : [l.otherEpisodeId, l.episodeId];
      const v = pairVotes.get(key) ?? { a, b, n: 0 };
      v.n += l.episodeId === a ? 1 : -1;
      pairVotes.set(key, v);
    } else if (l.kind !== 'prefer') {
      votes.set(l.episodeId, (votes.get(l.episodeId) ?? 0) + (l.kind === 'good' ? 1 : -1));
    }
  }
  let ties = 0;
  const points = new Map<string, 0 | 1>();
  for (const [id, n] of votes) {
    if (n === 0) ties++;
    else points.set(id, n > 0 ? 1 : 0);
  }
  const pairs: [string, string][] = [];
  for (const v of pairVotes.values()) {
    if (v.n === 0) ties++;
    else pairs.push(v.n > 0 ? [v.a, v.b] : [v.b, v.a]);
  }
  return { points, pairs, ties };
}

export interface BuiltDataset {
  lines: DatasetLine[];
  pointLabels: number;
  pairLabels: number;
  conversations: number;
  /** Labelled episodes left out: no stored call to read a conversation from. */
  missing: string[];
  ties: number;
}

/** The dataset of `labels`, reading conversations with `conversationOf` (task group: `groupOf`). */
export function buildDataset(
  labels: readonly Label[],
  conversationOf: (episodeId: string) => Conversation | null,
  groupOf: (episodeId: string) => string,
): BuiltDataset {
  const plan = planDataset(labels);
  const needed = new Set<string>([...plan.points.keys(), ...plan.pairs.flat()]);
  const convs = new Map<string, Conversation>();
  const missing: string[] = [];
  for (const id of [...needed].sort()) {
    const c = conversationOf(id);
    if (c) convs.set(id, c);
    else missing.push(id);
  }
  const lines: DatasetLine[] = [...convs].map(([id, c]) => ({
    kind: 'conversation',
    id,
    group: groupOf(id),
    messages: c.messages,
    tools: c.tools ?? null,
  }));
  let pointLabels = 0;
  for (const [id, label] of plan.points) {
    if (!convs.has(id)) continue;
    lines.push({ kind: 'point', id, label });
    pointLabels++;
  }
  let pairLabels = 0;
  for (const [chosen, rejected] of plan.pairs) {
    if (!convs.has(chosen) || !convs.has(rejected)) continue;
    lines.push({ kind: 'pair', chosen, rejected });
    pairLabels++;
  }
  return { lines, pointLabels, pairLabels, conversations: convs.size, missing, ties: plan.ties };
}
