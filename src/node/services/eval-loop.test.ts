// The eval loop's scheduling, with a FakePlay instead of real eval episodes.
import { describe, expect, it } from 'vitest';
import type { EvalSummary } from '../eval';
import { EvalLoop } from './eval-loop';

describe('EvalLoop', () => {
  it('evaluates at the start and every N steps, one at a time, catching up on the latest step', async () => {
    const calls: number[] = [];
    let release: (() => void) | null = null;
    const summary: EvalSummary = {
      episodes: 2,
      failed: 0,
      successRate: 0.5,
      rewardMean: 0.5,
      versions: [0],
      outcomes: [],
      seconds: 1,
    };
    const fakePlay = async (): Promise<EvalSummary> => {
      calls.push(calls.length);
      await new Promise<void>((r) => (release = r));
      return summary;
    };
    const lines: string[] = [];
    const loop = new EvalLoop({
      url: 'http://x',
      joinToken: 'j',
      task: 'calc',
      episodes: 2,
      every: 5,
      log: (l) => lines.push(l),
      play: fakePlay,
    });
    loop.start();
    loop.onStep(3);
    loop.onStep(5);
    loop.onStep(10);
    expect(calls).toHaveLength(1);
    release!();
    await new Promise((r) => setTimeout(r, 10));
    expect(calls).toHaveLength(2); // steps 5 and 10 came during the first eval: one catch-up eval
    release!();
    await loop.idle();
    expect(lines).toEqual([
      'eval after step 0: 2 episodes, success 50.0%, reward 0.500',
      'eval after step 10: 2 episodes, success 50.0%, reward 0.500',
    ]);
    loop.onStep(10);
    loop.stop();
    loop.onStep(15);
    expect(calls).toHaveLength(2);
  });
});
