import { describe, expect, it } from 'vitest';
import type { Label } from '../../shared/rewards-api';
import { WorkbenchError } from '../../shared/workbench-api';
import { labelLine, parseLabelsJsonl } from './labels-io';

describe('labels JSONL', () => {
  it('parses good/bad and preference lines, ignoring extra fields and blank lines', () => {
    const text = [
      '{"episodeId": "e1", "label": "good", "author": "ana", "createdAt": 5, "conversation": {"messages": []}}',
      '',
      '{"episodeId": "e2", "label": "bad"}',
      '{"episodeId": "e1", "otherEpisodeId": "e2", "label": "prefer", "source": "sheet"}',
    ].join('\n');
    expect(parseLabelsJsonl(text)).toEqual([
      { line: 1, label: { kind: 'good', episodeId: 'e1' }, author: 'ana', createdAt: 5, source: undefined },
      { line: 3, label: { kind: 'bad', episodeId: 'e2' }, author: undefined, createdAt: undefined, source: undefined },
      {
        line: 4,
        label: { kind: 'prefer', episodeId: 'e1', otherEpisodeId: 'e2' },
        author: undefined,
        createdAt: undefined,
        source: 'sheet',
      },
    ]);
  });

  it.each([
    ['{"episodeId": "e1", "label": "meh"}', 'line 1: label: "good", "bad" or "prefer"'],
    ['{"episodeId": "e1", "label": "prefer"}', 'line 1: otherEpisodeId'],
    ['{"label": "good"}', 'line 1: episodeId'],
    ['{"episodeId": "e1", "label": "good"}\n[1,2', 'line 2: invalid JSON'],
    ['"just a string"', 'line 1: label'],
  ])('refuses %s', (text, message) => {
    expect(() => parseLabelsJsonl(text)).toThrow(WorkbenchError);
    expect(() => parseLabelsJsonl(text)).toThrow(message);
  });

  it('exports lines that import back to the same labels', () => {
    const labels: Label[] = [
      {
        id: 1,
        kind: 'good',
        episodeId: 'e1',
        otherEpisodeId: null,
        taskId: 't',
        codeVersion: 'v1',
        otherCodeVersion: null,
        author: 'ana',
        source: 'inspector',
        createdAt: 3,
      },
      {
        id: 2,
        kind: 'prefer',
        episodeId: 'e2',
        otherEpisodeId: 'e1',
        taskId: 't',
        codeVersion: 'v2',
        otherCodeVersion: 'v1',
        author: 'bo',
        source: 'import',
        createdAt: 4,
      },
    ];
    const text = labels
      .map((l) => labelLine(l, { one: { messages: [{ role: 'user', content: 'hi' }] }, other: null }))
      .join('\n');
    expect(parseLabelsJsonl(text).map((l) => [l.label, l.author, l.source, l.createdAt])).toEqual([
      [{ kind: 'good', episodeId: 'e1' }, 'ana', 'inspector', 3],
      [{ kind: 'prefer', episodeId: 'e2', otherEpisodeId: 'e1' }, 'bo', 'import', 4],
    ]);
    expect(JSON.parse(labelLine(labels[1]!))).toEqual({
      episodeId: 'e2',
      label: 'prefer',
      otherEpisodeId: 'e1',
      taskId: 't',
      codeVersion: 'v2',
      otherCodeVersion: 'v1',
      author: 'bo',
      source: 'import',
      createdAt: 4,
    });
  });
});
