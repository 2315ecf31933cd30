// The admission gate over a fake engine (named as such): bounds, pause for updates, cancellation, streaming.
import { describe, expect, it } from 'vitest';
import { encode, FakeEngine } from '../testing/fake-engine';
import { Admission, AdmissionCancelledError, type AdmissionRequest } from './admission';

const prompt = (reply: string): AdmissionRequest => ({
  promptIds: encode(`<|im_start|>user\n${reply}<|im_end|>\n<|im_start|>assistant\n`),
  maxTokens: 64,
  temperature: 1,
  topP: 1,
  seed: 1,
});

function engine(stepMs = 2): FakeEngine {
  return new FakeEngine({ reply: (p) => p.split('\n')[1]!.replace('<|im_end|>', ''), stepMs });
}

const until = async (cond: () => boolean): Promise<void> => {
  while (!cond()) await new Promise((r) => setTimeout(r, 2));
};

describe('Admission', () => {
  it('sends each call as its own streamed generate and adds deltas up to the reply', async () => {
    const fake = engine();
    const gate = new Admission(fake);
    const deltas: string[] = [];
    const r = await gate.generate(prompt('hello there'), { onDelta: (d) => deltas.push(d.text) });
    expect(r.text).toBe('hello there');
    expect(deltas.join('')).toBe('hello there');
    expect(deltas.length).toBeGreaterThan(5); // token by token
    expect(r.cache).toEqual({ promptTokens: prompt('hello there').promptIds.length, cachedTokens: 0 });
    expect(fake.calls.filter((c) => c.method === 'generate')).toHaveLength(1);
  });

  it('bounds the calls in flight and admits the oldest waiting first', async () => {
    const fake = engine(5);
    const gate = new Admission(fake, { maxInFlight: 2 });
    const order: string[] = [];
    const calls = ['a', 'b', 'c', 'd'].map((x) => gate.generate(prompt(x.repeat(5))).then(() => order.push(x)));
    expect(gate.stats()).toMatchObject({ inFlight: 2, waiting: 2 });
    await Promise.all(calls);
    expect(order).toEqual(['a', 'b', 'c', 'd']);
    expect(gate.stats()).toMatchObject({ admitted: 4, completed: 4, inFlight: 0, waiting: 0 });
  });

  it('bounds the tokens in flight, but always admits one call', async () => {
    const gate = new Admission(engine(), { maxTokensInFlight: 10 });
    const a = gate.generate(prompt('xx'));
    const b = gate.generate(prompt('yy'));
    expect(gate.stats()).toMatchObject({ inFlight: 1, waiting: 1 });
    await Promise.all([a, b]);
  });

  it('pauses for an update: running calls finish, new ones wait until resume', async () => {
    const gate = new Admission(engine(5));
    const running = gate.generate(prompt('running'));
    await until(() => gate.stats().inFlight === 1);
    const paused = gate.pause();
    const later = gate.generate(prompt('later'));
    await paused;
    expect(gate.stats()).toMatchObject({ completed: 1, inFlight: 0, waiting: 1, paused: true });
    gate.resume();
    expect((await later).text).toBe('later');
    await running;
  });

  it('cancels a waiting call and a streaming one', async () => {
    const fake = engine(5);
    const gate = new Admission(fake, { maxInFlight: 1 });
    const streaming = new AbortController();
    const waiting = new AbortController();
    const a = gate.generate(prompt('a long reply to cancel'), {
      signal: streaming.signal,
      onDelta: () => streaming.abort(),
    });
    const b = gate.generate(prompt('never sent'), { signal: waiting.signal });
    waiting.abort();
    await expect(b).rejects.toBeInstanceOf(AdmissionCancelledError);
    await expect(a).rejects.toBeInstanceOf(AdmissionCancelledError);
    expect(fake.calls.filter((c) => c.method === 'generate')).toHaveLength(1);
    expect(gate.stats()).toMatchObject({ cancelled: 2, inFlight: 0 });
    await expect(gate.generate(prompt('x'), { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
      AdmissionCancelledError,
    );
  });

  it('fails every waiting call at once', async () => {
    const gate = new Admission(engine(5), { maxInFlight: 1 });
    const a = gate.generate(prompt('first'));
    const b = gate.generate(prompt('second'));
    gate.failAll(new Error('stopping'));
    await expect(b).rejects.toThrow('stopping');
    expect((await a).text).toBe('first');
  });

  it('reports the path the engine serves the model on, and why it is the static one', () => {
    expect(new Admission(engine()).stats()).toMatchObject({ mode: 'continuous' });
    expect(new Admission(engine()).stats()).not.toHaveProperty('fallback');
    const served = { mode: 'static' as const, continuous: false, fallback: 'attention logit soft-capping' };
    expect(new Admission(engine(), { served: () => served }).stats()).toMatchObject({
      mode: 'static',
      fallback: 'attention logit soft-capping',
    });
  });
});
