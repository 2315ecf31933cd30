// Integration: the real Python engine process with the built-in model, over real stdio frames.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GenerateDelta } from '../../../src/shared/engine-protocol';
import { RemoteError } from '../../../src/shared/result';
import { BUILTIN_MODEL_DIR } from '../resources';
import { EngineExitedError } from './engine-channel';
import { EngineProcess } from './engine-process';

describe('EngineProcess (real engine)', () => {
  let engine: EngineProcess;
  const logs: string[] = [];

  beforeAll(async () => {
    expect(existsSync(BUILTIN_MODEL_DIR), `built-in model missing at ${BUILTIN_MODEL_DIR}`).toBe(true);
    engine = await EngineProcess.start({ onLog: (l) => logs.push(l) });
    await engine.call('load', { path: BUILTIN_MODEL_DIR, threads: 1, seed: 1 });
  });
  afterAll(async () => {
    await engine.dispose();
  });

  it('renders a chat and generates with logprobs that a recomputation reproduces', async () => {
    const rendered = await engine.call('render', {
      messages: [{ role: 'user', content: 'Tom has 3 apples and buys 4 more. How many apples?' }],
    });
    expect(rendered.spans.at(-1)?.role).toBe('generation_prompt');
    expect(rendered.spans.at(-1)?.end).toBe(rendered.tokenIds.length);
    const out = await engine.call('generate', {
      requests: [{ promptIds: rendered.tokenIds, maxTokens: 24, temperature: 1, seed: 7 }],
    });
    const gen = out.results[0]!;
    expect(gen.tokenIds.length).toBe(gen.logprobs.length);
    const { logprobs } = await engine.call('logprobs', {
      sequences: [{ tokenIds: [...rendered.tokenIds, ...gen.tokenIds] }],
    });
    const recomputed = logprobs[0]!.slice(rendered.tokenIds.length);
    recomputed.forEach((lp, i) => expect(Math.abs(lp - gen.logprobs[i]!)).toBeLessThan(1e-4));
    const { texts } = await engine.call('decode', { sequences: [gen.tokenIds] });
    expect(texts[0]).toBe(gen.text);
  });

  it('streams a generation as delta frames, answers other calls meanwhile, and cancels by signal', async () => {
    const rendered = await engine.call('render', { messages: [{ role: 'user', content: 'Count to twenty.' }] });
    const deltas: GenerateDelta[] = [];
    let resolveFirst: () => void = () => undefined;
    const first = new Promise<void>((r) => (resolveFirst = r));
    const long = engine.call(
      'generate',
      {
        requests: [{ promptIds: rendered.tokenIds, maxTokens: 200, temperature: 1, seed: 3, stopIds: [] }],
        stream: true,
      },
      {
        onDelta: (d) => {
          deltas.push(d);
          resolveFirst();
        },
      },
    );
    await first;
    const order: string[] = [];
    const info = engine.call('info', {}).then((r) => {
      order.push('info');
      return r;
    });
    await Promise.all([long.then(() => order.push('generate')), info]);
    expect(order).toEqual(['info', 'generate']);
    const out = await long;
    expect(deltas.flatMap((d) => d.tokenIds)).toEqual(out.results[0]!.tokenIds);
    expect(deltas.map((d) => d.text).join('')).toBe(out.results[0]!.text);

    const controller = new AbortController();
    const doomed = engine.call(
      'generate',
      {
        requests: [{ promptIds: rendered.tokenIds, maxTokens: 200, temperature: 1, seed: 4, stopIds: [] }],
        stream: true,
      },
      { onDelta: () => controller.abort(), signal: controller.signal },
    );
    const err = await doomed.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RemoteError);
    expect((err as RemoteError).type).toBe('cancelled');
    const stats = await engine.call('cache_stats', {});
    expect(stats.batch?.active).toBe(0);
  });

  it('answers bad params with a typed error and keeps serving', async () => {
    // Deliberately invalid params, as a buggy caller would send them.
    const bad = { requests: [{ promptIds: 'nope', maxTokens: 4, temperature: 1 }] } as unknown as Parameters<
      EngineProcess['call']
    >[1];
    const err = await engine.call('generate', bad as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RemoteError);
    expect((err as RemoteError).type).toBe('invalid_params');
    expect((err as RemoteError).message).toMatch(/promptIds/);
    const info = await engine.call('info', {});
    expect(info.loaded).toBe(true);
  });

  it('answers a frame nested too deep to parse by its id (#19 §1), with the same process serving on', async () => {
    const pid = engine.pid;
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 999; i++) schema = { type: 'object', properties: { a: schema } };
    const tools = [{ type: 'function' as const, function: { name: 'f', parameters: schema } }];
    const err = await engine
      .call('render', { messages: [{ role: 'user', content: 'hi' }], tools })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RemoteError);
    expect(err).toMatchObject({ type: 'invalid_params', code: 'too_deep' });
    expect((err as Error).message).toMatch(/nests 2004 levels deep; at most 128 are accepted/);
    expect(engine.alive).toBe(true);
    expect(engine.pid).toBe(pid);
    expect((await engine.call('info', {})).loaded).toBe(true);
  });

  it('fails every in-flight call with one clear error when the process dies, and reports the exit', async () => {
    let exitReason = '';
    const doomed = await EngineProcess.start({ onExit: (r) => (exitReason = r) });
    const inflight = doomed.call('load', { path: BUILTIN_MODEL_DIR, threads: 1 });
    process.kill(doomed.pid!, 'SIGKILL');
    const err = await inflight.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineExitedError);
    expect(String((err as Error).message)).toMatch(/exited \(SIGKILL\)/);
    expect(doomed.alive).toBe(false);
    expect(exitReason).toMatch(/SIGKILL/);
    await expect(doomed.call('info', {})).rejects.toBeInstanceOf(EngineExitedError);
    await doomed.dispose();
  });

  it('rejects a missing interpreter with a message that says what to do', async () => {
    await expect(EngineProcess.start({ python: '/nonexistent/python3' })).rejects.toThrow(/not found/);
  });
});
