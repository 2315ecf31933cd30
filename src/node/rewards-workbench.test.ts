// The learned-reward loop in the workbench, end to end in plain Node: a real local worker (built-in
// model) and two calculator-rm clients (rule reward until a model is deployed); label their episodes,
// train a reward model in the engine's reward-model process (the label queue then ranks by it), deploy it — a new code version naming the
// model, the clients hot-swapped without touching the worker — and the new episodes report the reward
// model's score next to the verifiable reward, ready for the chart.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { WorkbenchEvent } from '../shared/workbench-api';
import { createWorkbench, REPO_ROOT, type Workbench } from './workbench';

const dataDir = mkdtempSync(join(tmpdir(), 'aj-rm-wb-'));
let wb: Workbench | null = null;
afterAll(async () => {
  await wb?.dispose();
  rmSync(dataDir, { recursive: true, force: true });
});

async function until<T>(what: string, fn: () => Promise<T> | T, ok: (v: T) => boolean, timeoutMs: number): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() - t0 > timeoutMs)
      throw new Error(`${what}: not within ${timeoutMs} ms: ${JSON.stringify(v).slice(0, 600)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const POINTER = 'resources/examples/calculator-rm/reward-model-ref.ts';

describe('learned rewards in the workbench', () => {
  it('labels episodes, trains a reward model, deploys it by hot-swap, and episodes report both rewards', async () => {
    wb = await createWorkbench({
      dataDir,
      log: () => undefined,
      workerConfig: { threads: 1, seed: 1 },
      evalEpisodes: 0,
      labelAuthor: 'tester',
    });
    const events: WorkbenchEvent[] = [];
    wb.onEvent((e) => events.push(e));
    const b = wb.backend;
    const { runId } = await b.connectLocal({
      model: 'builtin',
      example: 'calculator-rm',
      clients: 2,
      strategy: 'C2',
      batch: 2,
      groupSize: 2,
      maxTokens: 32,
    });
    const code = await b.codeFiles({});
    expect(code.files.find((f) => f.path === POINTER)?.editable).toBe(true);
    const v1 = code.codeVersion!;

    const page = await until(
      '8 ended episodes with timelines',
      () => b.episodes({ runId, filter: { status: 'ended', kind: 'train' }, offset: 0, limit: 200, order: 'oldest' }),
      (p) => p.rows.filter((r) => r.hasTimelines).length >= 8,
      240_000,
    );
    const rows = page.rows.filter((r) => r.hasTimelines).slice(0, 12);
    for (const r of rows)
      await b.putLabel({ runId, label: { kind: r.success ? 'good' : 'bad', episodeId: r.episodeId } });
    const { labels, summary } = await b.labels({ runId, limit: 200 });
    expect(summary.good + summary.bad).toBe(rows.length);
    expect(labels[0]).toMatchObject({ author: 'tester', source: 'inspector', codeVersion: v1 });

    const { version } = await b.trainRewardModel({
      runId,
      loss: 'pointwise',
      epochs: 1,
      lr: 1e-4,
      heldout: 0.2,
      maxMinutes: 10,
    });
    await until(
      'the reward model trained',
      () => events.filter((e) => e.type === 'reward_model').at(-1),
      (e) => e?.type === 'reward_model' && e.status.state !== 'training',
      280_000,
    );
    const trained = events.filter((e) => e.type === 'reward_model').at(-1);
    expect(trained?.type === 'reward_model' && trained.status.state).toBe('done');

    // The queue now ranks by the new model's scores (scored in main by the SDK's onnxruntime-node scorer).
    const q = await b.labelQueue({ runId, limit: 5, mode: 'points' });
    expect(q.rewardModel).toBe(version);
    expect(q.items.length).toBeGreaterThan(0); // the clients kept playing while the model trained
    for (const item of q.items)
      expect(item.kind === 'point' && item.score !== null && item.uncertainty >= 0).toBe(true);
    const models = (await b.rewardModels({ runId })).models;
    expect(models.map((m) => [m.version, m.loss, m.pointLabels])).toEqual([[version, 'pointwise', rows.length]]);
    expect(models[0]!.onnxMaxAbsDiff).toBeLessThanOrEqual(1e-4);

    const before = await b.session({});
    const deployed = await b.deployRewardModel({ runId, version });
    expect(deployed.path).toBe(POINTER);
    expect(deployed.codeVersion).not.toBe(v1);
    const files = await b.codeFiles({});
    expect(files.codeVersion).toBe(deployed.codeVersion);
    expect(files.files.find((f) => f.path === POINTER)?.content).toContain(
      (await b.rewardModels({ runId })).models[0]!.sha256,
    );
    // The repository's pointer is untouched (the edit is the run's overlay).
    expect(readFileSync(join(REPO_ROOT, POINTER), 'utf8')).toContain('"rewardModel": null');
    expect((await b.rewardModels({ runId })).models[0]!.deployedAt).not.toBeNull();

    const cmp = await until(
      'episodes scored by the deployed model',
      () => b.rewardComparison({ runId, limit: 100 }),
      (c) => c.points.length >= 2,
      240_000,
    );
    expect(
      cmp.points.every(
        (p) =>
          p.codeVersion === deployed.codeVersion &&
          Number.isFinite(p.rmScore) &&
          (p.verifiable === 0 || p.verifiable === 1),
      ),
    ).toBe(true);
    const after = await b.session({});
    expect(after?.workerUrl).toBe(before?.workerUrl); // the same worker: only the clients were swapped
    await b.disconnect({});
  }, 900_000);
});
