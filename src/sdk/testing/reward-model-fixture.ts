// Test support: a small labels dataset of real calculator-agent conversations (the warm-start
// transcript generator played against the env: correct answers and the usual mistakes), and a reward
// model trained on it by the engine's own process, for the tests that need a real folder.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { calculatorEnv, loadTasks } from '../../../resources/examples/index';
import { calcTranscript } from '../../../resources/examples/calculator-agent/transcripts';
import { createPrng } from '../../shared/prng';
import { episodeConversation, type Conversation, type DatasetLine } from '../../shared/reward-model';
import { trainRewardModel, type RmTrained } from '../../node/services/reward-model-trainer';

export const BUILTIN_MODEL = resolve(import.meta.dirname, '../../../resources/models/agentjet-tiny');

export interface LabelledConversation extends Conversation {
  id: string;
  group: string;
  success: boolean;
}

/** `groups` train tasks × `perGroup` transcripts each, with the env's verdict. */
export function calcConversations(groups: number, perGroup: number, seed = 1): LabelledConversation[] {
  const rng = createPrng(seed);
  const tasks = loadTasks('calculator-agent', 'train').slice(0, groups);
  return tasks.flatMap((task) =>
    Array.from({ length: perGroup }, (_, k) => {
      const t = calcTranscript(task, rng, k % 2 === 0 ? 'correct' : undefined);
      return {
        id: `${task.id}-${k}`,
        group: task.id,
        messages: episodeConversation(t.episode.messages),
        tools: calculatorEnv.tools,
        success: t.episode.success,
      };
    }),
  );
}

export function datasetLines(convs: readonly LabelledConversation[]): DatasetLine[] {
  return [
    ...convs.map((c): DatasetLine => ({
      kind: 'conversation',
      id: c.id,
      group: c.group,
      messages: c.messages,
      tools: c.tools ?? null,
    })),
    ...convs.map((c): DatasetLine => ({ kind: 'point', id: c.id, label: c.success ? 1 : 0 })),
  ];
}

/** Trains a reward model on the built-in model (a few steps: what it learns is not the point). */
export async function trainFixtureModel(
  o: { maxLength?: number; epochs?: number } = {},
): Promise<{ dir: string; trained: RmTrained; conversations: LabelledConversation[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'agentjet-rm-'));
  const conversations = calcConversations(12, 4);
  const dataset = join(dir, 'dataset.jsonl');
  await writeFile(
    dataset,
    datasetLines(conversations)
      .map((l) => JSON.stringify(l))
      .join('\n') + '\n',
  );
  const trained = await trainRewardModel({
    dataset,
    base: BUILTIN_MODEL,
    out: join(dir, 'rm-v1'),
    version: 1,
    loss: 'both',
    epochs: o.epochs ?? 1,
    batch: 8,
    maxLength: o.maxLength ?? 256,
    threads: 2,
  }).done;
  return { dir, trained, conversations };
}
