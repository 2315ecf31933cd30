import { describe, expect, it } from 'vitest';
import { checkParams, configKey, gridOf, gridSize, inDomain } from './space';
import { expandEnv, parseCampaign, trialSetup, type CampaignSpec } from './spec';

const doc = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'lr-group',
  question: 'Which learning rate and group size?',
  base: { task: 'calculator-agent', training: { strategy: 'C2', batch: 4, defaultMaxTokens: 48 } },
  search: { lr: { float: [1e-5, 1e-3], log: true }, groupSize: { choice: [2, 4, 8] } },
  budget: { trials: 6, minutesPerTrial: 2 },
  ...extra,
});

function ok(d: unknown): CampaignSpec {
  const r = parseCampaign(d);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.spec;
}

describe('campaign file', () => {
  it('fills the defaults of a minimal file', () => {
    const s = ok(doc());
    expect(s.objective).toEqual({ metric: 'eval_success', summary: 'final', direction: 'maximize' });
    expect(s.optimizer.sampler).toBe('tpe');
    expect(s.optimizer.pruner.type).toBe('hyperband');
    expect(s.seeds).toBe(1);
    expect(s.workers).toEqual({ local: 'auto', remote: [] });
    expect(s.base.eval.episodes).toBe(16);
    expect(s.search['lr']).toEqual({ float: [1e-5, 1e-3], log: true });
  });

  it('names every problem: unknown settings, values no worker accepts, int options as floats, bad ranges', () => {
    const r = parseCampaign(
      doc({
        search: {
          nope: { choice: [1] },
          lr: { float: [0, 1], log: true },
          batch: { float: [1, 8] },
          strategy: { choice: ['C9'] },
          groupSize: { int: [8, 2] },
        },
      }),
    );
    expect(r.ok).toBe(false);
    const text = r.ok ? '' : r.errors.join('\n');
    expect(text).toContain('search.nope: not a setting a trial can vary');
    expect(text).toContain('lr: a log scale needs low > 0');
    expect(text).toContain('batch: takes whole numbers');
    expect(text).toContain('strategy: choice "C9" is not a valid value');
    expect(text).toContain('groupSize: the range [8, 2] must have low < high');
  });

  it('refuses unknown keys, a grid without values, mix outside the cocktail, and nowhere to run', () => {
    expect(parseCampaign(doc({ budgett: {} })).ok).toBe(false);
    const grid = parseCampaign(doc({ optimizer: { sampler: 'grid' } }));
    expect(grid.ok ? '' : grid.errors.join()).toContain('give grid values for lr');
    const mix = parseCampaign(doc({ search: { mix: { float: [0, 1] } } }));
    expect(mix.ok ? '' : mix.errors.join()).toContain('cocktail');
    const nowhere = parseCampaign(doc({ workers: { local: 0 } }));
    expect(nowhere.ok ? '' : nowhere.errors.join()).toContain('could run nowhere');
  });

  it('expands ${VAR} from the environment and reports the missing ones', () => {
    const missing: string[] = [];
    const out = expandEnv(
      { workers: { remote: [{ url: 'http://h:1', adminToken: '${ADM}', joinToken: '${NOPE}' }] } },
      { ADM: 'secret-admin' },
      missing,
    );
    expect(out).toEqual({ workers: { remote: [{ url: 'http://h:1', adminToken: 'secret-admin', joinToken: '' }] } });
    expect(missing).toEqual(['NOPE']);
  });

  it('applies a configuration and a seed to the base run', () => {
    const s = ok(
      doc({
        search: { lr: { float: [1e-5, 1e-3], log: true }, clients: { int: [1, 4] } },
        base: { task: 'calculator-agent', worker: { seed: 10 }, training: { batch: 4 } },
      }),
    );
    const t = trialSetup(s, { lr: 3e-4, clients: 3 }, 2);
    expect(t).toMatchObject({ task: 'calculator-agent', clients: 3, seed: 12, training: { batch: 4, lr: 3e-4 } });
  });
});

describe('search space', () => {
  const space = ok(
    doc({
      search: {
        lr: { float: [1e-5, 1e-3], log: true },
        groupSize: { choice: [2, 4, 8] },
        batch: { int: [2, 8], step: 2 },
      },
    }),
  ).search;

  it('checks a proposed configuration against the domains', () => {
    expect(checkParams(space, { lr: 1e-4, groupSize: 4, batch: 6 })).toEqual([]);
    expect(checkParams(space, { lr: 1e-2, groupSize: 3, batch: 5, extra: 1 })).toEqual([
      'extra: not in the search space (lr, groupSize, batch)',
      'lr: 0.01 is outside [0.00001, 0.001] log',
      'groupSize: 3 is outside {2, 4, 8}',
      'batch: 5 is outside int [2, 8] step 2',
    ]);
    expect(checkParams(space, { lr: 1e-4 })).toEqual(['groupSize: missing', 'batch: missing']);
    expect(inDomain({ choice: ['C2'] }, 'C2')).toBe(true);
  });

  it('walks a grid of choices, int ranges and explicit values', () => {
    const { grid, missing } = gridOf({ ...space, lr: { float: [1e-5, 1e-3], log: true, grid: [1e-4, 1e-3] } });
    expect(missing).toEqual([]);
    expect(grid).toEqual({ lr: [1e-4, 1e-3], groupSize: [2, 4, 8], batch: [2, 4, 6, 8] });
    expect(gridSize(grid)).toBe(24);
  });

  it('keys a configuration by its parameters, in any order', () => {
    expect(configKey({ a: 1, b: 'x' })).toBe(configKey({ b: 'x', a: 1 }));
    expect(configKey({ a: 1 })).not.toBe(configKey({ a: 2 }));
  });
});
