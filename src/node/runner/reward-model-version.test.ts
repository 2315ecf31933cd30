// The code version of a client names the reward model it scores with: the pointer module is bundled,
// so deploying another model (an edited reward-model-ref.ts, here as an overlay) is a new code version.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rewardModelPointerSource } from '../../shared/reward-model';
import { compileClient } from './compile';

const dir = resolve(import.meta.dirname, '../../../resources/examples/calculator-rm');
const cache = await mkdtemp(join(tmpdir(), 'agentjet-rmv-'));
afterAll(() => rm(cache, { recursive: true, force: true }));

describe('calculator-rm code versions', () => {
  it('compiles, and a deployed reward model changes the code version', async () => {
    const entry = join(dir, 'client.ts');
    const opts = { cacheDir: cache, nodePaths: [resolve(import.meta.dirname, '../../../node_modules')] };
    const none = await compileClient({ entry }, opts);
    expect(none.ok).toBe(true);
    const pointer = join(dir, 'reward-model-ref.ts');
    const v1 = await compileClient(
      {
        entry,
        overlay: { [pointer]: rewardModelPointerSource({ folder: '/rm/v1', sha256: 'a'.repeat(64), version: 1 }) },
      },
      opts,
    );
    const v2 = await compileClient(
      {
        entry,
        overlay: { [pointer]: rewardModelPointerSource({ folder: '/rm/v2', sha256: 'b'.repeat(64), version: 2 }) },
      },
      opts,
    );
    if (!none.ok || !v1.ok || !v2.ok) throw new Error('compile failed');
    expect(new Set([none.codeVersion, v1.codeVersion, v2.codeVersion]).size).toBe(3);
    expect(v1.inputs.some((f) => f.path.endsWith('reward-model-ref.ts') && f.contents.includes('a'.repeat(64)))).toBe(
      true,
    );
  });
});
