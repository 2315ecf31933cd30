// Tests for the warm-start transcript set: line schema, train-split only, val share, determinism.
import { describe, expect, it } from 'vitest';
import { loadTasks } from '../../resources/examples/index';
import { buildTranscripts, describeStats, TranscriptLineSchema } from './make-transcripts';

describe('buildTranscripts', () => {
  const set = buildTranscripts({ seed: 3, calculator: 400, guess: 200 });
  const lines = [...set.train, ...set.val];

  it('writes schema-valid lines for both tasks, with tools only for the calculator', () => {
    expect(lines).toHaveLength(600);
    for (const line of lines) {
      expect(TranscriptLineSchema.parse(line)).toEqual(line);
      expect(line.tools === null).toBe(line.task === 'guess-number');
    }
    expect(lines.filter((l) => l.task === 'calculator-agent')).toHaveLength(400);
  });

  it('uses train tasks only', () => {
    const trainIds = new Set(
      [...loadTasks('calculator-agent', 'train'), ...loadTasks('guess-number', 'train')].map((t) => t.id),
    );
    expect(lines.every((l) => trainIds.has(l.taskId))).toBe(true);
  });

  it('holds out 5% for validation', () => {
    expect(set.val).toHaveLength(30);
    expect(new Set(set.val.map((l) => l.task)).size).toBe(2);
  });

  it('reports success fractions in the intended ranges', () => {
    const calc = set.stats['calculator-agent'];
    const guess = set.stats['guess-number'];
    expect(calc.count).toBe(400);
    expect(calc.successRate).toBeGreaterThan(0.58);
    expect(calc.successRate).toBeLessThan(0.76);
    expect(guess.successRate).toBeGreaterThan(0.68);
    expect(guess.successRate).toBeLessThan(0.9);
    expect(describeStats(set).join('\n')).toMatch(/calculator-agent: 400 transcripts, success \d+\.\d%/);
  });

  it('is deterministic for a seed', () => {
    const again = buildTranscripts({ seed: 3, calculator: 40, guess: 20 });
    expect(again).toEqual(buildTranscripts({ seed: 3, calculator: 40, guess: 20 }));
    expect(buildTranscripts({ seed: 4, calculator: 40, guess: 20 }).train).not.toEqual(again.train);
  });
});
