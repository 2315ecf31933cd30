// Bad reward code against the real runner (real child processes): every failure is that
// episode's clear error, the run stays bounded, and good episodes around them still score.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RewardLoadError, runReward } from './runner';

const dir = mkdtempSync(join(tmpdir(), 'aj-reward-try-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const opts = { cacheDir: join(dir, 'cache'), nodePaths: [join(process.cwd(), 'node_modules')], perEpisodeMs: 1500 };

const NASTY_TS = `
import type { ChatMessage } from '${process.cwd()}/src/shared/chat';
export function reward(task: { mode: string }, messages: ChatMessage[]): { reward: number; success: boolean } | unknown {
  switch (task.mode) {
    case 'loop': for (;;) {}
    case 'throw': throw new Error('bad rule');
    case 'nan': return { reward: NaN, success: false };
    case 'string': return { reward: '1', success: true };
    case 'print': { const s = 'x'.repeat(1 << 16); for (let i = 0; i < 64; i++) console.log(s); return 1; }
    case 'exit': process.exit(3);
    default: return { reward: messages.length, success: true };
  }
}
`;

describe('runReward', () => {
  it('turns loops, throws, NaN, strings, floods and exits into per-episode errors; the rest scores', async () => {
    const file = join(dir, 'reward.ts');
    writeFileSync(file, NASTY_TS);
    const modes = ['ok', 'loop', 'ok', 'throw', 'nan', 'string', 'print', 'exit', 'ok'];
    const out = await runReward(
      modes.map((mode) => ({ task: { mode }, messages: [{ role: 'user', content: 'q' }] })),
      { ...opts, file },
    );
    expect(out.map((o) => (o.ok ? o.reward : o.error.split(' ')[0]))).toEqual([
      1,
      'did',
      1,
      'threw:',
      'returned',
      'returned',
      'printed',
      'the',
      1,
    ]);
    expect(out[1]).toMatchObject({ error: expect.stringContaining('did not return within 1500 ms') });
    expect(out[3]).toMatchObject({ error: expect.stringContaining('bad rule') });
    expect(out[4]).toMatchObject({ error: expect.stringContaining('NaN') });
    expect(out[5]).toMatchObject({ error: expect.stringContaining('string') });
  });

  it('skips the rest after too many kills, and refuses a file without a reward function', async () => {
    const file = join(dir, 'loop.ts');
    writeFileSync(file, 'export function reward(): number { for (;;) {} }\n');
    const out = await runReward(
      [1, 2, 3].map(() => ({ task: {}, messages: [] })),
      { ...opts, file, perEpisodeMs: 300, maxFailures: 1 },
    );
    expect(out.map((o) => (o.ok ? 'ok' : o.error.split(':')[0]))).toEqual([
      'did not return within 300 ms (killed)',
      'skipped',
      'skipped',
    ]);
    const none = join(dir, 'none.ts');
    writeFileSync(none, 'export const x = 1;\n');
    await expect(runReward([{ task: {}, messages: [] }], { ...opts, file: none })).rejects.toThrow(RewardLoadError);
  });

  it('runs a Python reward', async () => {
    const file = join(dir, 'reward.py');
    writeFileSync(
      file,
      [
        'def reward(task, messages):',
        '    if task.get("bad"):',
        '        return "yes"',
        '    return {"reward": float(len(messages)), "success": True}',
      ].join('\n'),
    );
    const out = await runReward(
      [
        { task: {}, messages: [{}, {}] },
        { task: { bad: true }, messages: [] },
      ],
      { ...opts, file },
    );
    expect(out[0]).toEqual({ ok: true, reward: 2, success: true });
    expect(out[1]).toMatchObject({ ok: false, error: expect.stringContaining('not a number') });
  });
});
