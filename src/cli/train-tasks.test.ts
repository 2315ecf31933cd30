// Per-task aggregation for `agentjet train`: task ids to tasks, the tally between steps, the
// side-by-side step segment and summary cells, and the example → tasks map.
import { describe, expect, it } from 'vitest';
import { formatStep, summaryTable, type StepRow } from './train-report';
import { exampleTasks, formatTasks, taskCells, TaskTally, taskOf } from '../node/train-tasks';

describe('per-task figures', () => {
  it('maps task ids to tasks by prefix', () => {
    expect(taskOf('calc-train-12')).toBe('calc');
    expect(taskOf('guess-eval-3')).toBe('guess');
    expect(taskOf('proposer-1')).toBeNull();
    expect(exampleTasks('cocktail')).toEqual(['calc', 'guess']);
    expect(exampleTasks('guess-number')).toEqual(['guess']);
  });

  it("takes the oldest episodes up to a step's count, leaving the rest for the next step", () => {
    const t = new TaskTally();
    ['calc-train-1', 'calc-train-2', 'guess-train-1', 'guess-train-2'].forEach((id, i) => t.add(id, i, i % 2 === 0));
    expect(t.take(['calc', 'guess'], 2)).toEqual({
      calc: { episodes: 2, rewardMean: 0.5, successRate: 0.5 },
      guess: { episodes: 0, rewardMean: null, successRate: null },
    });
    expect(t.size).toBe(2);
    expect(t.take(['calc', 'guess'], 5).guess).toEqual({ episodes: 2, rewardMean: 2.5, successRate: 0.5 });
    expect(t.size).toBe(0);
  });

  it('tallies reward and success per task and starts over after take', () => {
    const t = new TaskTally();
    t.add('calc-train-1', 1, true);
    t.add('calc-train-2', 0, false);
    t.add('calc-train-3', 0.5, undefined);
    t.add('other-1', 1, true);
    const b = t.take(['calc', 'guess']);
    expect(b.calc).toEqual({ episodes: 3, rewardMean: 0.5, successRate: 0.5 });
    expect(b.guess).toEqual({ episodes: 0, rewardMean: null, successRate: null });
    expect(t.take(['calc']).calc?.episodes).toBe(0);
  });

  it('prints both tasks side by side, with - for a task without episodes', () => {
    const t = new TaskTally();
    t.add('guess-train-1', 0.25, false);
    const b = t.take(['calc', 'guess']);
    expect(formatTasks(b, ['calc', 'guess'])).toBe('calc - | guess reward 0.250 success 0.0% (1)');
    expect(taskCells(b, ['calc', 'guess'])).toEqual(['-', '-', '0.250', '0.0%']);
    const row: StepRow = {
      step: 1,
      weightVersion: 1,
      episodes: 1,
      rewardMean: 0.25,
      successRate: 0,
      mergeRatio: 1,
      samples: 1,
      trainSeconds: 0.1,
      stepSeconds: 1,
      loss: null,
      tasks: b,
    };
    expect(formatStep(row, 1, 2, ['calc', 'guess'])).toMatch(/ · calc - \| guess reward 0\.250 success 0\.0% \(1\)$/);
    const table = summaryTable([row], ['calc', 'guess']).split('\n');
    expect(table[0]).toMatch(/calc reward +calc success +guess reward +guess success$/);
    expect(table[2]).toMatch(/- +- +0\.250 +0\.0%$/);
  });
});
