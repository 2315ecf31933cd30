import { describe, expect, it } from 'vitest';
import type { GenerateRequest, GenerateResult } from '../../../src/shared/engine-protocol';
import { GenerateBatcher } from './generate-batcher';

/** A fake engine: echoes each prompt's length, resolving when the test releases it. */
function fakeEngine() {
  const calls: GenerateRequest[][] = [];
  const releases: (() => void)[] = [];
  const generate = (requests: GenerateRequest[]): Promise<GenerateResult> => {
    calls.push(requests);
    return new Promise((resolve) => {
      releases.push(() =>
        resolve({
          weightVersion: 3,
          results: requests.map((r) => ({ tokenIds: [r.promptIds.length], logprobs: [-0.5], finishReason: 'stop', text: String(r.promptIds.length) })),
        }),
      );
    });
  };
  return { calls, releases, generate };
}

const req = (n: number): GenerateRequest => ({ promptIds: Array.from({ length: n }, (_, i) => i), maxTokens: 4, temperature: 1 });
const tick = () => new Promise((r) => setImmediate(r));

describe('GenerateBatcher', () => {
  it('batches requests issued together and queues those arriving mid-batch for the next one', async () => {
    const fake = fakeEngine();
    const batcher = new GenerateBatcher(fake.generate, 8);
    const first = [1, 2, 3].map((n) => batcher.submit(req(n)));
    await tick();
    expect(fake.calls.map((c) => c.length)).toEqual([3]);
    const late = [4, 5].map((n) => batcher.submit(req(n)));
    await tick();
    expect(fake.calls).toHaveLength(1); // still decoding the first batch
    fake.releases[0]!();
    const got = await Promise.all(first);
    expect(got.map((g) => g.generation.tokenIds[0])).toEqual([1, 2, 3]);
    expect(got[0]!.batchSize).toBe(3);
    await tick();
    expect(fake.calls.map((c) => c.length)).toEqual([3, 2]);
    fake.releases[1]!();
    expect((await Promise.all(late)).map((g) => g.generation.tokenIds[0])).toEqual([4, 5]);
    expect(batcher.batches).toBe(2);
  });

  it('splits at maxBatch and rejects only the failed batch', async () => {
    let n = 0;
    const batcher = new GenerateBatcher(async (requests) => {
      n += 1;
      if (n === 1) throw new Error('engine exploded');
      return { weightVersion: 0, results: requests.map(() => ({ tokenIds: [1], logprobs: [0], finishReason: 'length' as const, text: '' })) };
    }, 2);
    const all = [1, 2, 3].map((k) => batcher.submit(req(k)).then(() => 'ok', (e: Error) => e.message));
    expect(await Promise.all(all)).toEqual(['engine exploded', 'engine exploded', 'ok']);
  });
});
