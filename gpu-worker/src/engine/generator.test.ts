// The Generator over the DecodeScheduler: per-delta streaming whose deltas add up to the final
// text, cancellation by AbortSignal, and the delta tracker's hold-back of half characters.
import { describe, expect, it } from 'vitest';
import { encode, FakeEngine } from '../testing/fake-engine';
import { DecodeScheduler } from './decode-scheduler';
import { deltaTracker, GenerationCancelledError, schedulerGenerator } from './generator';

function generatorFor(reply: string, stepMs = 0) {
  const fake = new FakeEngine({ reply: () => reply, stepMs });
  const scheduler = new DecodeScheduler(
    {
      generate: (requests) => fake.call('generate', { requests }),
      decode: async (sequences) => (await fake.call('decode', { sequences })).texts,
    },
    { firstChunk: 4, maxChunk: 8 },
  );
  return { fake, generator: schedulerGenerator(scheduler) };
}

const request = {
  promptIds: encode('<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n'),
  maxTokens: 100,
  temperature: 1,
  topP: 1,
  seed: 3,
};

describe('deltaTracker', () => {
  it('sends only what extends the text sent so far and holds back a trailing U+FFFD', () => {
    const got: string[] = [];
    const push = deltaTracker((d) => got.push(d.text));
    for (const t of ['ab', 'ab', 'abc\uFFFD', 'abcé', 'abcé', 'abcéfg']) push(t);
    expect(got).toEqual(['ab', 'c', 'é', 'fg']);
  });
});

describe('schedulerGenerator', () => {
  it('streams deltas that concatenate to the final text', async () => {
    const { generator } = generatorFor('the quick brown fox jumps over the lazy dog');
    const deltas: string[] = [];
    const r = await generator.generate(request, { onDelta: (d) => deltas.push(d.text) });
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.join('')).toBe(r.text);
    expect(r).toMatchObject({
      text: 'the quick brown fox jumps over the lazy dog',
      finishReason: 'stop',
      weightVersion: 0,
    });
    expect(r.logprobs).toHaveLength(r.tokenIds.length);
  });

  it('rejects with GenerationCancelledError once the signal aborts, and at once when already aborted', async () => {
    const { generator } = generatorFor('z'.repeat(60), 1);
    const ctl = new AbortController();
    const p = generator.generate(request, { signal: ctl.signal, onDelta: () => ctl.abort() });
    await expect(p).rejects.toBeInstanceOf(GenerationCancelledError);
    await expect(generator.generate(request, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
      GenerationCancelledError,
    );
    await expect(generator.generate(request)).resolves.toMatchObject({ text: 'z'.repeat(60) });
  });
});
