import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GenerateRequest } from '../../../src/shared/engine-protocol';
import { decode, encode, FakeEngine } from '../testing/fake-engine';
import { DecodeCancelledError, DecodeScheduler, planRound, visibleText, type DecodeEngine } from './decode-scheduler';

function engineFor(reply: (prompt: string) => string, stepMs = 0): { engine: DecodeEngine; fake: FakeEngine } {
  const fake = new FakeEngine({ reply: (p) => reply(p), stepMs });
  return {
    fake,
    engine: {
      generate: (requests) => fake.call('generate', { requests }),
      decode: async (sequences) => (await fake.call('decode', { sequences })).texts,
    },
  };
}

const prompt = (text: string): number[] => encode(`<|im_start|>user\n${text}<|im_end|>\n<|im_start|>assistant\n`);
const req = (
  text: string,
  extra: Partial<GenerateRequest> & { onText?: (t: string) => void; stop?: string[]; cancelled?: () => boolean } = {},
) => ({
  promptIds: prompt(text),
  maxTokens: 100,
  temperature: 1,
  topP: 1,
  seed: 1,
  ...extra,
});

describe('planRound', () => {
  it('runs every row to completion without chunked rows, else stops all at the smallest chunk boundary', () => {
    expect(
      planRound(
        [
          { remaining: 50, generated: 0, chunked: false },
          { remaining: 7, generated: 3, chunked: false },
        ],
        8,
        64,
      ),
    ).toEqual([50, 7]);
    expect(
      planRound(
        [
          { remaining: 50, generated: 0, chunked: true },
          { remaining: 100, generated: 0, chunked: false },
        ],
        8,
        64,
      ),
    ).toEqual([8, 8]);
    expect(
      planRound(
        [
          { remaining: 50, generated: 24, chunked: true },
          { remaining: 5, generated: 0, chunked: false },
        ],
        8,
        64,
      ),
    ).toEqual([24, 5]);
    expect(planRound([{ remaining: 500, generated: 300, chunked: true }], 8, 64)).toEqual([64]);
  });

  it('never plans more than a row has left, and at least one token for every row', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            remaining: fc.integer({ min: 1, max: 300 }),
            generated: fc.integer({ min: 0, max: 300 }),
            chunked: fc.boolean(),
          }),
          { minLength: 1, maxLength: 10 },
        ),
        (rows) => {
          const plan = planRound(rows, 8, 64);
          plan.forEach((n, i) => {
            expect(n).toBeGreaterThanOrEqual(1);
            expect(n).toBeLessThanOrEqual(rows[i]!.remaining);
          });
        },
      ),
    );
  });
});

describe('visibleText', () => {
  it('cuts at the first stop string and holds back a possible start of one', () => {
    expect(visibleText('alpha STOP beta', ['STOP'])).toEqual({ text: 'alpha ', stopped: true });
    expect(visibleText('alpha ST', ['STOP'])).toEqual({ text: 'alpha ', stopped: false });
    expect(visibleText('alpha', undefined)).toEqual({ text: 'alpha', stopped: false });
    expect(visibleText('a\n\nb', ['\n\n', 'b'])).toEqual({ text: 'a', stopped: true });
  });
});

describe('DecodeScheduler', () => {
  it('batches requests of the same tick and queues later ones for the next round', async () => {
    const { engine, fake } = engineFor(() => 'x'.repeat(20), 1);
    const s = new DecodeScheduler(engine, { maxBatch: 4 });
    const first = Array.from({ length: 6 }, (_, i) => s.submit(req(`a${i}`)));
    const results = await Promise.all(first);
    expect(fake.generateBatches).toEqual([4, 2]);
    for (const r of results)
      expect(r).toMatchObject({ text: 'x'.repeat(20), finishReason: 'stop', rounds: 1, weightVersion: 0 });
  });

  it('waits for requests reserved before a round starts, so they share its batch', async () => {
    const { engine, fake } = engineFor(() => 'ok');
    const s = new DecodeScheduler(engine);
    const release = s.reserve();
    const a = s.submit(req('a'));
    await new Promise((r) => setTimeout(r, 30));
    const b = s.submit(req('b'));
    release();
    await Promise.all([a, b]);
    expect(fake.generateBatches).toEqual([2]);
    // A reservation that is never used only delays a round by the bounded wait.
    const quick = new DecodeScheduler(engine, { reservationWaitMs: 20 });
    quick.reserve();
    await expect(quick.submit(req('c'))).resolves.toMatchObject({ text: 'ok' });
  });

  it('streams chunked rows with growing chunks, and new requests join at the next boundary', async () => {
    const { engine, fake } = engineFor(
      (p) => (p.includes('stream') ? 'abcdefghijklmnopqrstuvwxyz0123456789' : 'short'),
      2,
    );
    const s = new DecodeScheduler(engine, { firstChunk: 4, maxChunk: 16 });
    const seen: string[] = [];
    const streamed = s.submit(req('stream', { onText: (t) => seen.push(t) }));
    await new Promise((r) => setTimeout(r, 5));
    const joiner = s.submit(req('join'));
    const [a, b] = await Promise.all([streamed, joiner]);
    expect(a.text).toBe('abcdefghijklmnopqrstuvwxyz0123456789');
    expect(a.tokenIds).toHaveLength(37);
    expect(a.rounds).toBeGreaterThan(2);
    expect(seen.slice(0, 3)).toEqual(['abcd', 'abcdefgh', 'abcdefghijklmnop']);
    expect(b.text).toBe('short');
    expect(b.maxBatch).toBe(2);
    expect(Math.max(...fake.generateBatches)).toBe(2);
    // Tokens and logprobs of a chunked row line up exactly as one generation would.
    expect(decode(a.tokenIds)).toBe(a.text);
    expect(a.logprobs).toHaveLength(a.tokenIds.length);
  });

  it('cuts the output after the token that completes a stop string', async () => {
    const { engine } = engineFor(() => 'one two STOP three');
    const s = new DecodeScheduler(engine);
    const r = await s.submit(req('x', { stop: ['STOP'] }));
    expect(r).toMatchObject({ text: 'one two ', finishReason: 'stop' });
    expect(decode(r.tokenIds)).toBe('one two STOP');
  });

  it('honours maxTokens with finish reason length', async () => {
    const { engine } = engineFor(() => 'x'.repeat(50));
    const r = await new DecodeScheduler(engine).submit(req('x', { maxTokens: 7 }));
    expect(r).toMatchObject({ finishReason: 'length', text: 'xxxxxxx' });
  });

  it('pause() waits for running rows and holds new ones until resume()', async () => {
    const { engine, fake } = engineFor(() => 'y'.repeat(30), 2);
    const s = new DecodeScheduler(engine);
    const running = s.submit(req('a'));
    await new Promise((r) => setTimeout(r, 5));
    let paused = false;
    const pausing = s.pause().then(() => (paused = true));
    const held = s.submit(req('b'));
    await running;
    await pausing;
    expect(paused).toBe(true);
    expect(fake.generateBatches).toEqual([1]);
    fake.weightVersion = 1;
    s.resume();
    expect((await held).weightVersion).toBe(1);
  });

  it('fails rows with the engine error and drops cancelled rows', async () => {
    const failing: DecodeEngine = { generate: () => Promise.reject(new Error('boom')), decode: async () => [] };
    await expect(new DecodeScheduler(failing).submit(req('x'))).rejects.toThrow('boom');
    const { engine } = engineFor(() => 'z'.repeat(40), 1);
    const s = new DecodeScheduler(engine, { firstChunk: 4 });
    let cancel = false;
    const p = s.submit(req('x', { onText: () => (cancel = true), cancelled: () => cancel }));
    await expect(p).rejects.toBeInstanceOf(DecodeCancelledError);
    const q = s.submit(req('y'));
    s.failAll(new Error('engine gone'));
    await expect(q).rejects.toThrow('engine gone');
  });
});
