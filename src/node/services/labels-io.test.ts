import { describe, expect, it } from 'vitest';
import type { Label } from '../../shared/rewards-api';
import { WorkbenchError } from '../../shared/workbench-api';
import { labelLine, parseLabelsJsonl } from './labels-io';

describe('labels JSONL', () => {
  it('parses good/bad and preference lines, ignoring extra fields and blank lines', () => {
    const text = [
      '{"episodeId": "e1", "label": "good", "author": "ana", "createdAt": 1700000000005, "conversation": {"messages": []}}',
      '',
      '{"episodeId": "e2", "label": "bad"}',
      '{"episodeId": "e1", "otherEpisodeId": "e2", "label": "prefer", "source": "sheet"}',
    ].join('\n');
    expect(parseLabelsJsonl(text)).toEqual([
      {
        line: 1,
        label: { kind: 'good', episodeId: 'e1' },
        author: 'ana',
        createdAt: 1_700_000_000_005,
        source: undefined,
      },
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
    ['{"episodeId": "e1", "label": "good", "createdAt": 1e300}', 'line 1: createdAt: milliseconds since 1970'],
    ['{"episodeId": "e1", "label": "good", "createdAt": -1e300}', 'line 1: createdAt: milliseconds since 1970'],
    ['{"episodeId": "e1", "label": "good", "createdAt": 5}', 'line 1: createdAt: milliseconds since 1970'],
    ['{"episodeId": "e1", "label": "good", "createdAt": "2024"}', 'line 1: createdAt'],
    [
      '{"episodeId": "e1", "label": "good"}\n{"episodeId": "e\\u0000", "label": "bad"}',
      'line 2: episodeId: contains a NUL',
    ],
    ['{"episodeId": "e1", "label": "good", "author": "a\\u0000b"}', 'line 1: author: contains a NUL character'],
    ['{"episodeId": "e1", "label": "good", "source": "\\u0000"}', 'line 1: source: contains a NUL character'],
    ['{"episodeId": "e1", "otherEpisodeId": "\\u0000", "label": "prefer"}', 'line 1: otherEpisodeId: contains a NUL'],
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
        createdAt: 1_700_000_000_003,
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
        createdAt: 1_700_000_000_004,
      },
    ];
    const text = labels
      .map((l) => labelLine(l, { one: { messages: [{ role: 'user', content: 'hi' }] }, other: null }))
      .join('\n');
    expect(parseLabelsJsonl(text).map((l) => [l.label, l.author, l.source, l.createdAt])).toEqual([
      [{ kind: 'good', episodeId: 'e1' }, 'ana', 'inspector', 1_700_000_000_003],
      [{ kind: 'prefer', episodeId: 'e2', otherEpisodeId: 'e1' }, 'bo', 'import', 1_700_000_000_004],
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
      createdAt: 1_700_000_000_004,
    });
  });
});
