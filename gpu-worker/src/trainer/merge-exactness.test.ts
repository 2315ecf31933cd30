// Integration: timeline merging is a pure speed-up. Real calls are recorded against the real
// engine (built-in model), merged with `mergeTimelines` in none / linear / tree modes (and packed
// across task groups by `buildTrainSamples`), and the engine's train-step loss, PPO stats and
// gradient norm on each agree within 1e-4 relative (dry runs: the policy is not changed).
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calculatorExample, guessNumberExample, loadExampleTasks } from '../../../resources/examples/index';
import type { TrainSample, TrainStats } from '../../../src/shared/engine-protocol';
import { mergeTimelines, unpackTree, type MergeMode, type Timeline } from '../../../src/shared/timeline/index';
import { EngineProcess } from '../engine/engine-process';
import { BUILTIN_MODEL_DIR } from '../resources';
import { playEpisodes } from '../rollout/evaluate';
import { buildTrainSamples, toTrainSample, type ScoredEpisode } from './train-samples';

const MODES: readonly MergeMode[] = ['none', 'linear', 'tree'];
const COMPARED = ['loss', 'pgLoss', 'clipFraction', 'approxKl', 'entropy', 'gradNorm'] as const;

const relDiff = (a: number, b: number): number => Math.abs(a - b) / Math.max(Math.abs(a), 1e-9);

describe('timeline merging on the real engine', () => {
  let engine: EngineProcess;
  let episodes: ScoredEpisode[];

  beforeAll(async () => {
    expect(existsSync(BUILTIN_MODEL_DIR), `built-in model missing at ${BUILTIN_MODEL_DIR}`).toBe(true);
    engine = await EngineProcess.start();
    await engine.call('load', { path: BUILTIN_MODEL_DIR, threads: 2, seed: 5 });
    const sampling = { maxTokens: 48, temperature: 1 };
    // Groups of 3 rollouts per task: they share the system + task prompt (tree packing across episodes).
    const calc = await playEpisodes(
      engine,
      calculatorExample.env,
      loadExampleTasks(calculatorExample, 'eval')
        .slice(0, 2)
        .flatMap((t) => [t, t, t]),
      { sampling, seed: 21, episodePrefix: 'c' },
    );
    const guess = await playEpisodes(
      engine,
      guessNumberExample.env,
      loadExampleTasks(guessNumberExample, 'eval')
        .slice(0, 1)
        .flatMap((t) => [t, t, t]),
      { sampling, seed: 22, episodePrefix: 'g' },
    );
    episodes = [...calc, ...guess].map((p, i) => ({
      episodeId: p.episodeId,
      groupKey: `${p.episodeId[0] ?? ''}${Math.floor(p.index / 3)}`,
      reward: p.result.reward + 0.1 * i, // distinct rewards: no zero-advantage group
      timelines: p.calls,
    }));
    // Move the policy away from the one that sampled, so importance ratios differ from 1.
    const warm = buildTrainSamples(episodes, { estimator: 'grpo', merge: 'linear' }).samples;
    await engine.call('train_step', { samples: warm, hyper: { lr: 2e-3 } });
  }, 240_000);

  afterAll(async () => {
    await engine.dispose();
  });

  const dryRun = (samples: TrainSample[]): Promise<TrainStats> =>
    engine.call('train_step', { samples, hyper: { lr: 1e-3, clipHigh: 0.28, dryRun: true } });

  /** Every mode's stats agree with `none`'s; returns the largest relative difference. */
  function expectAgreement(byMode: Record<string, TrainStats>): number {
    const none = byMode.none!;
    let worst = 0;
    for (const [mode, stats] of Object.entries(byMode)) {
      for (const key of COMPARED) {
        worst = Math.max(worst, relDiff(none[key], stats[key]));
        expect(relDiff(none[key], stats[key]), `${mode} ${key}`).toBeLessThan(1e-4);
      }
      expect(stats.lossWeight).toBe(none.trainedTokens);
      expect(stats.dryRun).toBe(true);
    }
    return worst;
  }

  it('mergeTimelines in none / linear / tree modes gives the same loss and gradient norm', async () => {
    const timelines: Timeline[] = episodes.flatMap((e) => [...e.timelines]);
    const advantage = Object.fromEntries(episodes.map((e, i) => [e.episodeId, (i % 3) - 1 + 0.25]));
    const byMode: Record<string, TrainStats> = {};
    const tokens: Record<string, number> = {};
    for (const mode of MODES) {
      const merged = mergeTimelines(timelines, { mode, level: 'token' });
      const samples = merged.samples.map((s) => toTrainSample(s, advantage));
      byMode[mode] = await dryRun(samples);
      tokens[mode] = merged.stats.tokensAfter;
      expect(byMode[mode]!.tokens).toBe(merged.stats.tokensAfter);
    }
    const worst = expectAgreement(byMode);
    console.log(
      `mergeTimelines tokens: none ${tokens.none}, linear ${tokens.linear}, tree ${tokens.tree}; max rel diff ${worst.toExponential(2)}`,
    );
    expect(tokens.linear!).toBeLessThan(tokens.none!);
    expect(byMode.none!.clipFraction).toBeGreaterThan(0);
    const info = await engine.call('info', {});
    expect(info.weightVersion).toBe(1); // the dry runs changed nothing
  });

  it('packing each task group into a prefix tree keeps the loss and shrinks the step further', async () => {
    const byMode: Record<string, TrainStats> = {};
    const built = Object.fromEntries(
      MODES.map((merge) => [merge, buildTrainSamples(episodes, { estimator: 'grpo', merge })]),
    );
    for (const mode of MODES) byMode[mode] = await dryRun(built[mode]!.samples);
    const worst = expectAgreement(byMode);
    const tree = built.tree!.samples;
    expect(tree.some((s) => s.parents !== undefined)).toBe(true);
    expect(byMode.tree!.tokens).toBeLessThan(byMode.linear!.tokens);
    expect(byMode.linear!.tokens).toBeLessThan(byMode.none!.tokens);
    console.log(
      `tokens per step: none ${byMode.none!.tokens}, linear ${byMode.linear!.tokens}, tree ${byMode.tree!.tokens}; ` +
        `max rel diff ${worst.toExponential(2)}`,
    );
  });

  it('scores a packed tree like its unpacked root-to-leaf sequences', async () => {
    const [sample] = buildTrainSamples(
      episodes.filter((e) => e.groupKey === 'c0'),
      { estimator: 'grpo', merge: 'tree' },
    ).samples;
    if (sample?.parents === undefined) throw new Error('the three rollouts of one task did not pack into a tree');
    const packed = await engine.call('logprobs', {
      sequences: [{ tokenIds: sample.tokenIds, parents: sample.parents, positions: sample.positions }],
    });
    const paths = unpackTree({
      kind: 'tree',
      episodeIds: ['x'],
      tokenIds: sample.tokenIds,
      lossMask: sample.lossMask,
      rolloutLogprobs: sample.rolloutLogprobs,
      spans: [],
      absorbedTimelineIds: [],
      parents: sample.parents,
      positions: sample.positions ?? [],
      weights: sample.weights ?? [],
    });
    const perPath = await engine.call('logprobs', { sequences: paths.map((p) => ({ tokenIds: p.tokenIds })) });
    let worst = 0;
    paths.forEach((p, k) =>
      p.indices.forEach(
        (i, depth) =>
          (worst = Math.max(worst, Math.abs((packed.logprobs[0]?.[i] ?? NaN) - (perPath.logprobs[k]?.[depth] ?? NaN)))),
      ),
    );
    expect(paths.length).toBeGreaterThanOrEqual(3);
    // fp32: the packed tree attends in segments, each path as one sequence; the sums run in another
    // order (and another thread split), so logprobs of magnitude ~10 agree to ~1e-5 (measured up to 1.1e-5).
    expect(worst).toBeLessThan(5e-5);
  });
});
