import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffFiles, unifiedDiff } from './text-diff';

/** Applies a unified diff's hunks to `before` (to check the diff is exact). */
function apply(before: string, diff: string): string {
  const a = before === '' ? [] : before.replace(/\n$/, '').split('\n');
  const out: string[] = [];
  let i = 0;
  for (const line of diff.split('\n').slice(2)) {
    const h = /^@@ -(\d+),(\d+) /.exec(line);
    if (h) {
      const start = Number(h[2]) === 0 ? Number(h[1]) : Number(h[1]) - 1;
      while (i < start) out.push(a[i++]!);
    } else if (line.startsWith(' ')) {
      out.push(line.slice(1));
      i++;
    } else if (line.startsWith('-')) i++;
    else if (line.startsWith('+')) out.push(line.slice(1));
  }
  while (i < a.length) out.push(a[i++]!);
  return out.length ? `${out.join('\n')}\n` : '';
}

describe('unified diff', () => {
  it('shows a changed line with its context', () => {
    const d = unifiedDiff('reward.ts', 'a\nb\nc\nd\ne\n', 'a\nb\nC\nd\ne\n', 1);
    expect(d).toBe('--- a/reward.ts\n+++ b/reward.ts\n@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n');
    expect(unifiedDiff('x', 'same\n', 'same\n')).toBe('');
    expect(diffFiles({ 'a.ts': null }, { 'a.ts': 'new\n' })).toBe('--- /dev/null\n+++ b/a.ts\n@@ -0,0 +1,1 @@\n+new\n');
  });

  it('applying the diff to the old text gives the new text', () => {
    const lines = fc
      .array(fc.constantFrom('a', 'b', 'c', 'd', 'e'), { maxLength: 30 })
      .map((l) => (l.length ? `${l.join('\n')}\n` : ''));
    fc.assert(
      fc.property(lines, lines, fc.integer({ min: 0, max: 4 }), (before, after, ctx) => {
        expect(apply(before, unifiedDiff('f', before, after, ctx) || '--- \n+++ \n')).toBe(after);
      }),
    );
  });
});
