// The Generator over the admission gate and a fake engine (named as such): per-delta streaming whose
// deltas add up to the final text, and cancellation by AbortSignal.
import { describe, expect, it } from 'vitest';
import { encode, FakeEngine } from '../testing/fake-engine';
import { Admission } from './admission';
import { GenerationCancelledError, gateGenerator } from './generator';

function generatorFor(reply: string, stepMs = 0) {
  const fake = new FakeEngine({ reply: () => reply, stepMs });
  return { fake, generator: gateGenerator(new Admission(fake)) };
}

const request = {
  promptIds: encode('<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n'),
  maxTokens: 100,
  temperature: 1,
  topP: 1,
  seed: 3,
};

describe('gateGenerator', () => {
  it('streams deltas that concatenate to the final text', async () => {
    const { generator } = generatorFor('the quick brown fox jumps over the lazy dog');
    const deltas: string[] = [];
    const r = await generator.generate(request, { onDelta: (d) => deltas.push(d.text) });
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.join('')).toBe(r.text);
    expect(deltas).not.toContain('');
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
