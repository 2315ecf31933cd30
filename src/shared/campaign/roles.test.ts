import { describe, expect, it } from 'vitest';
import { checkRoles, roleEnv, roleWorkers } from './roles';
import { parseCampaign, trialSetup, type CampaignSpec } from './spec';
import { analyseStudy, studyMarkdown } from './study-report';
import { armCampaign, parseStudy } from './study-spec';
import type { TrialRow } from './trials';

const base = { model: 'builtin', training: { batch: 4, lr: 1e-4 } };

describe('role workers', () => {
  it('starts one worker per role with its own settings, or one shared worker for every role', () => {
    const own = { solver: { model: 'qwen', training: { lr: 3e-4 } } };
    expect(roleWorkers('proposer-solver', base, own, 'separate')).toEqual([
      { name: 'proposer', roles: ['proposer'], model: 'builtin', training: { batch: 4, lr: 1e-4 } },
      { name: 'solver', roles: ['solver'], model: 'qwen', training: { batch: 4, lr: 3e-4 } },
    ]);
    expect(roleWorkers('proposer-solver', base, undefined, 'shared')).toEqual([
      { name: 'shared', roles: ['proposer', 'solver'], model: 'builtin', training: { batch: 4, lr: 1e-4 } },
    ]);
  });

  it('names what is wrong: roles on a one-role task, an unknown role, per-role settings on a shared worker', () => {
    expect(checkRoles('calculator-agent', undefined, undefined)).toEqual([]);
    expect(checkRoles('calculator-agent', undefined, 'shared')[0]).toMatch(/several roles only/);
    expect(checkRoles('proposer-solver', { judge: { training: {} } }, 'separate')[0]).toMatch(/no role "judge"/);
    expect(checkRoles('proposer-solver', { solver: { model: 'x', training: {} } }, 'shared')[0]).toMatch(
      /one worker per role/,
    );
    expect(checkRoles('proposer-solver', { solver: { model: 'x', training: {} } }, 'separate')).toEqual([]);
  });

  it('tells clients each role through AGENTJET_<ROLE>_URL / _JOIN_TOKEN', () => {
    expect(roleEnv('proposer', 'URL')).toBe('AGENTJET_PROPOSER_URL');
    expect(roleEnv('code-judge', 'JOIN_TOKEN')).toBe('AGENTJET_CODE_JUDGE_JOIN_TOKEN');
  });
});

describe('campaign and study files with roles', () => {
  const campaign = (baseRun: Record<string, unknown>): CampaignSpec => {
    const r = parseCampaign({
      name: 'ps',
      base: { task: 'proposer-solver', training: { batch: 2 }, ...baseRun },
      search: { lr: { float: [1e-5, 1e-3], log: true } },
      budget: { trials: 2, minutesPerTrial: 1 },
    });
    if (!r.ok) throw new Error(r.errors.join('\n'));
    return r.spec;
  };

  it('gives a trial of a role task its workers, searched options applied to every role', () => {
    const spec = campaign({ roles: { solver: { training: { batch: 8 } } } });
    const setup = trialSetup(spec, { lr: 2e-4 }, 1);
    expect(setup.workers?.map((w) => [w.name, w.training])).toEqual([
      ['proposer', { batch: 2, lr: 2e-4 }],
      ['solver', { batch: 8, lr: 2e-4 }],
    ]);
    expect(trialSetup(campaign({ roleWorkers: 'shared' }), {}, 0).workers?.map((w) => w.name)).toEqual(['shared']);
  });

  it('refuses roles on a one-role task', () => {
    const r = parseCampaign({
      name: 'c',
      base: { task: 'calculator-agent', roleWorkers: 'shared' },
      search: { lr: { float: [1e-5, 1e-3] } },
      budget: { trials: 1, minutesPerTrial: 1 },
    });
    expect(r.ok ? [] : r.errors).toEqual([expect.stringMatching(/^base\.roles \/ roleWorkers apply/)]);
  });

  it('refuses one worker per role on remote workers (a remote slot is one worker)', () => {
    const r = parseCampaign({
      name: 'ps',
      base: { task: 'proposer-solver' },
      search: { lr: { float: [1e-5, 1e-3] } },
      budget: { trials: 1, minutesPerTrial: 1 },
      workers: {
        local: 0,
        remote: [{ url: 'http://10.0.0.2:8321', adminToken: 'admin-token', joinToken: 'join-token' }],
      },
    });
    expect(r.ok ? [] : r.errors).toEqual([expect.stringMatching(/^workers\.remote: one worker per role/)]);
  });

  it('runs a study arm with `roles: shared` as a campaign with one shared worker', () => {
    const r = parseStudy({
      kind: 'study',
      name: 'svs',
      base: { task: 'proposer-solver' },
      arms: { separate: { roles: 'separate' }, shared: { roles: 'shared' } },
      budget: { minutes: 1, updates: 4 },
    });
    if (!r.ok) throw new Error(r.errors.join('\n'));
    expect(trialSetup(armCampaign(r.spec, 'shared'), {}, 0).workers?.map((w) => w.roles)).toEqual([
      ['proposer', 'solver'],
    ]);
    expect(trialSetup(armCampaign(r.spec, 'separate'), {}, 0).workers?.map((w) => w.roles)).toEqual([
      ['proposer'],
      ['solver'],
    ]);
  });
});

describe('study report of a role task', () => {
  const spec = (() => {
    const r = parseStudy({
      kind: 'study',
      name: 'svs',
      base: { task: 'proposer-solver' },
      arms: { separate: { roles: 'separate' }, shared: { roles: 'shared' } },
      budget: { minutes: 1, updates: 4 },
    });
    if (!r.ok) throw new Error(r.errors.join('\n'));
    return r.spec;
  })();
  const row = (arm: string, n: number, joint: number, proposer: number, solver: number): TrialRow => ({
    campaignId: 'svs',
    number: n,
    state: 'complete',
    params: { arm },
    seed: n,
    source: 'optimizer',
    rationale: null,
    value: joint,
    points: [
      {
        index: 0,
        resource: 0,
        step: 0,
        elapsedS: 0,
        evalSuccess: 0,
        evalReward: 0,
        evalEpisodes: 4,
        trainReward: null,
      },
      {
        index: 1,
        resource: 1,
        step: 4,
        elapsedS: 60,
        evalSuccess: joint,
        evalReward: joint,
        evalEpisodes: 4,
        trainReward: null,
        roles: { proposer, solver },
      },
    ],
    note: null,
    worker: 'local-1',
    runDir: null,
    steps: 4,
    startedAt: 0,
    endedAt: 60_000,
  });

  it("reports each role's final success per arm beside the joint metric", () => {
    const a = analyseStudy(spec, [
      row('separate', 0, 0.5, 0.75, 0.5),
      row('shared', 1, 0.25, 0.5, 0.25),
      row('separate', 2, 0.25, 0.25, 0.5),
    ]);
    expect(a.arms.find((x) => x.arm === 'separate')?.roles['proposer']).toMatchObject({ mean: 0.5, n: 2 });
    const md = studyMarkdown(spec, a, 0);
    expect(md).toContain('## Each role');
    expect(md).toContain('| arm | proposer | solver |');
    expect(md).toMatch(/\| separate \| 50\.0 pp ± 25\.0 pp \| 50\.0 pp ± 0\.0 pp \|/);
    expect(md).toContain('| shared | 50.0 pp (1 seed) | 25.0 pp (1 seed) |');
  });
});
