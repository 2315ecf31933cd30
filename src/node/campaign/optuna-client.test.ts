// The optimiser process from TypeScript: real Optuna in the engine's virtualenv over JSON lines.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OptunaClient, OptunaError } from './optuna-client';

describe('optuna client', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aj-optuna-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('asks, reports, tells and lists trials; errors are values; a dead process rejects what is pending', async () => {
    const o = await OptunaClient.start();
    await o.open({
      storage: join(dir, 'study.sqlite'),
      studyName: 's',
      direction: 'maximize',
      space: { lr: { type: 'float', low: 1e-5, high: 1e-3, log: true }, g: { type: 'categorical', choices: [2, 4] } },
      sampler: { type: 'random', seed: 1 },
      pruner: { type: 'median', minResource: 1, reductionFactor: 3 },
    });
    await o.enqueue({ lr: 2e-4, g: 4 }, { source: 'agent', rationale: 'why not' });
    const t = await o.ask({ seed: 0, source: 'optimizer' });
    expect(t).toMatchObject({ params: { lr: 2e-4, g: 4 }, attrs: { source: 'agent', rationale: 'why not', seed: 0 } });
    expect(await o.report(t.number, 1, 0.3)).toBe(false);
    await o.tell(t.number, 'complete', 0.4, { steps: 3 });
    const [row] = await o.trials();
    expect(row).toMatchObject({ state: 'complete', value: 0.4, intermediate: [[1, 0.3]], attrs: { steps: 3 } });
    await expect(o.enqueue({ lr: 5, g: 4 }, {})).rejects.toThrow(/outside/);
    await expect(o.tell(999, 'complete', 1)).rejects.toBeInstanceOf(OptunaError);
    await o.dispose();
    await expect(o.ask()).rejects.toThrow(/exited/);
  });
});
