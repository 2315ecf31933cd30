import { describe, expect, it } from 'vitest';
import type { Label } from '../../shared/rewards-api';
import { conversation, say } from '../../shared/timeline/testing/scenes';
import { buildDataset, conversationFromTimelines, planDataset } from './labels-dataset';

let nextId = 1;
const label = (
  kind: Label['kind'],
  episodeId: string,
  author: string,
  otherEpisodeId: string | null = null,
): Label => ({
  id: nextId++,
  kind,
  episodeId,
  otherEpisodeId,
  taskId: 't',
  codeVersion: null,
  otherCodeVersion: null,
  author,
  source: 'test',
  createdAt: 1,
});

describe('planDataset', () => {
  it('combines authors by majority and drops ties', () => {
    const plan = planDataset([
      label('good', 'a', 'x'),
      label('good', 'a', 'y'),
      label('bad', 'a', 'z'),
      label('good', 'b', 'x'),
      label('bad', 'b', 'y'),
      label('prefer', 'a', 'x', 'c'),
      label('prefer', 'c', 'y', 'a'),
      label('prefer', 'c', 'z', 'a'),
      label('prefer', 'd', 'x', 'e'),
      label('prefer', 'e', 'y', 'd'),
    ]);
    expect([...plan.points]).toEqual([['a', 1]]);
    expect(plan.pairs).toEqual([['c', 'a']]);
    expect(plan.ties).toBe(2);
  });
});

describe('conversationFromTimelines / buildDataset', () => {
  it("reads the last call's messages plus its output", () => {
    const calls = conversation('e', [
      { reply: say(null, ['calc', '{"expression": "1+2"}']) },
      { reply: say('#### 3') },
    ]);
    const c = conversationFromTimelines([...calls].reverse());
    expect(c?.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
    expect(c?.messages.at(-1)?.content).toBe('#### 3');
    expect(conversationFromTimelines([])).toBeNull();
  });

  it('writes conversations once, then point and pair lines; episodes without calls are left out', () => {
    const calls = conversation('x', [{ reply: say('#### 3') }]);
    const conv = conversationFromTimelines(calls)!;
    const ds = buildDataset(
      [
        label('good', 'a', 'x'),
        label('bad', 'b', 'x'),
        label('prefer', 'a', 'x', 'b'),
        label('good', 'gone', 'x'),
        label('prefer', 'a', 'y', 'gone'),
      ],
      (id) => (id === 'gone' ? null : conv),
      (id) => `task-of-${id}`,
    );
    expect(ds.missing).toEqual(['gone']);
    expect(ds.lines.map((l) => l.kind)).toEqual(['conversation', 'conversation', 'point', 'point', 'pair']);
    expect(ds.lines[0]).toMatchObject({ kind: 'conversation', id: 'a', group: 'task-of-a' });
    expect(ds).toMatchObject({ pointLabels: 2, pairLabels: 1, conversations: 2 });
  });
});
