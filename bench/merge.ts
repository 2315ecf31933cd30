// Benchmark `merge`: the wall-clock of one policy update (an engine `train_step` dry run: forward,
// backward and gradient norm over the whole step, no optimizer step) on the same episodes trained
// without merging (`none`), with linear merging and with tree packing, side by side in one run on
// one engine — played calculator and guess-number episodes, synthetic episodes of 2, 5, 10 and 20
// turns with long tool outputs, and one task group of 8 rollouts sharing a long prompt. Prints per
// setting the speed-ups and token ratios over `none`, the loss agreement between the variants
// (token-level merging is loss-exact), and the merge time per 1,000 episodes and as a share of the
// update time it saves. Variants are interleaved and each timing is the median of `--repeats`.
// Tree samples run on the engine's exact segment attention (the shared prefix computed once, each
// branch attending to its ancestors' keys); `tree-dense` times the same tree samples under the dense
// T×T reference mask, side by side.
// Smaller (the `--smoke` setting): `--settings calc,2,group`, `--tasks N` played tasks, `--episodes N` per
// synthetic setting, `--group N` rollouts, `--fill F` of the sizes, `--max-tokens N` per played reply.
import { EngineProcess } from '../gpu-worker/src/engine/engine-process';
import { BUILTIN_MODEL_DIR } from '../gpu-worker/src/resources';
import { playEpisodes } from '../gpu-worker/src/rollout/evaluate';
import { buildTrainSamples, type ScoredEpisode } from '../gpu-worker/src/trainer/train-samples';
import type { AdvantageEstimator } from '../src/shared/advantages';
import type { TrainSample } from '../src/shared/engine-protocol';
import type { MergeMode } from '../src/shared/timeline/index';
import { calculatorExample, guessNumberExample, loadExampleTasks } from '../resources/examples/index';
import { argValue, round } from './engine';
import { fitSystemPrompt, fitToolChars, GROUP_TASK, scoredFromPlayed, syntheticEpisodes } from './merge-episodes';

type VariantKey = MergeMode | 'treeDense';
const VARIANTS: readonly VariantKey[] = ['none', 'linear', 'tree', 'treeDense'];
/** Per-variant hyper fields: the dense-mask variant of the tree samples. */
const VARIANT_HYPER: Partial<Record<VariantKey, { treeAttention: 'dense' }>> = {
  treeDense: { treeAttention: 'dense' },
};

interface Setting {
  key: string;
  label: string;
  episodes: ScoredEpisode[];
  estimator: AdvantageEstimator;
}

interface Variant {
  samples: TrainSample[];
  tokens: number;
  seconds: number[];
  losses: number[];
  gradNorms: number[];
  /** ms to build this variant's samples from the recorded calls (merge + advantages). */
  mergeMs: number;
}

/** Mean |advantage| over the trained tokens: the natural scale of a PPO loss. */
function advantageScale(samples: readonly TrainSample[]): number {
  let sum = 0;
  let n = 0;
  for (const s of samples) {
    s.lossMask.forEach((m, i) => {
      if (m === 0) return;
      sum += Math.abs(typeof s.advantages === 'number' ? s.advantages : (s.advantages[i] ?? 0));
      n++;
    });
  }
  return n > 0 ? sum / n : 0;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};

/** ms per call of `fn`, repeated for at least `minMs`. */
function timeIt(fn: () => unknown, minMs = 60): number {
  let n = 0;
  const t0 = performance.now();
  do {
    fn();
    n++;
  } while (performance.now() - t0 < minMs);
  return (performance.now() - t0) / n;
}

function prepare(setting: Setting): Record<VariantKey, Variant> {
  const build = (merge: MergeMode): Variant => {
    const run = (): TrainSample[] =>
      buildTrainSamples(setting.episodes, { estimator: setting.estimator, merge }).samples;
    const samples = run();
    return {
      samples,
      tokens: samples.reduce((n, s) => n + s.tokenIds.length, 0),
      seconds: [],
      losses: [],
      gradNorms: [],
      mergeMs: timeIt(run),
    };
  };
  const tree = build('tree');
  return {
    none: build('none'),
    linear: build('linear'),
    tree,
    treeDense: { ...tree, seconds: [], losses: [], gradNorms: [] },
  };
}

export async function benchMerge(args: string[]): Promise<Record<string, unknown>> {
  const repeats = Number(argValue(args, '--repeats') ?? 3);
  const perSetting = Number(argValue(args, '--episodes') ?? 2); // per synthetic setting: the ratios are per episode
  const modelDir = argValue(args, '--model') ?? BUILTIN_MODEL_DIR;
  // `--fill F` scales the synthetic episodes' sizes below (fractions of the context) by F: smaller, faster steps.
  const fill = Number(argValue(args, '--fill') ?? 1);
  if (!(fill > 0 && fill <= 1)) throw new Error(`--fill ${fill}: a fraction of the sizes, in (0, 1]`);
  const engine = await EngineProcess.start({ onLog: (l) => process.stderr.write(`  engine: ${l}\n`) });
  try {
    const info = await engine.call('load', {
      path: modelDir,
      threads: Number(argValue(args, '--threads') ?? 2),
      seed: 0,
    });
    const context = info.contextLength;
    const eos = info.eosTokenIds[0] ?? 0;
    console.log(
      `model ${info.model} · ${(info.params / 1e6).toFixed(2)}M params · context ${context} · ${info.device}/${info.dtype} · ${info.threads} threads`,
    );

    const t0 = performance.now();
    const settings: Setting[] = [];
    const sampling = { maxTokens: Number(argValue(args, '--max-tokens') ?? 96), temperature: 1 };
    // Played: `--tasks` tasks × 4 rollouts each (GRPO groups share the system + task prompt).
    // `--settings 10,group` runs only those settings (keys: calc, guess, 2, 5, 10, 20, group).
    const only = argValue(args, '--settings')?.split(',');
    const wanted = (key: string): boolean => only === undefined || only.includes(key);
    const playedTasks = Number(argValue(args, '--tasks') ?? 4);
    if (playedTasks > 0 && wanted('calc')) {
      const calcTasks = loadExampleTasks(calculatorExample, 'eval')
        .slice(0, playedTasks)
        .flatMap((t) => [t, t, t, t]);
      const calc = await playEpisodes(engine, calculatorExample.env, calcTasks, {
        sampling,
        seed: 11,
        episodePrefix: 'calc',
      });
      settings.push({
        key: 'calc',
        label: 'calculator (played)',
        episodes: scoredFromPlayed(calc, (p) => `calc-${Math.floor(p.index / 4)}`),
        estimator: 'grpo',
      });
    }
    if (playedTasks > 0 && wanted('guess')) {
      const guessTasks = loadExampleTasks(guessNumberExample, 'eval')
        .slice(0, playedTasks)
        .flatMap((t) => [t, t, t, t]);
      const guess = await playEpisodes(engine, guessNumberExample.env, guessTasks, {
        sampling,
        seed: 12,
        episodePrefix: 'guess',
      });
      settings.push({
        key: 'guess',
        label: 'guess-number (played)',
        episodes: scoredFromPlayed(guess, (p) => `guess-${Math.floor(p.index / 4)}`),
        estimator: 'grpo',
      });
    }
    // Synthetic: `turns` calls per episode, tool outputs sized so a whole episode fills ~85% of the context.
    for (const turns of [2, 5, 10, 20].filter((t) => wanted(String(t)))) {
      const toolChars = await fitToolChars(engine, turns, Math.floor(context * 0.85 * fill), turns);
      const episodes = await syntheticEpisodes(engine, {
        prefix: `syn${turns}-`,
        count: perSetting,
        turns,
        toolChars,
        seed: turns,
        eosId: eos,
      });
      settings.push({ key: String(turns), label: `synthetic ${turns} turns`, episodes, estimator: 'reinforce' });
    }
    const groupSize = Number(argValue(args, '--group') ?? 8);
    if (wanted('group')) {
      // One task group: 8 (`--group`) rollouts of 3 turns sharing a long system prompt (~55% of the context).
      const system = await fitSystemPrompt(engine, Math.floor(context * 0.55 * fill), 99);
      const groupToolChars = await fitToolChars(engine, 3, Math.floor(context * 0.8 * fill), 99, system);
      const group = await syntheticEpisodes(engine, {
        prefix: 'group-',
        count: groupSize,
        turns: 3,
        toolChars: groupToolChars,
        seed: 99,
        eosId: eos,
        system,
        task: GROUP_TASK,
        groupKey: 'group',
      });
      settings.push({
        key: 'group',
        label: `task group of ${groupSize} (long prompt)`,
        episodes: group,
        estimator: 'grpo',
      });
    }
    console.log(`episodes recorded in ${((performance.now() - t0) / 1000).toFixed(1)}s`);

    const prepared = settings.map((s) => ({ setting: s, variants: prepare(s) }));
    const hyper = { lr: 1e-6, dryRun: true };
    const first = prepared[0];
    if (first)
      for (const v of VARIANTS)
        await engine.call('train_step', {
          samples: first.variants[v].samples,
          hyper: { ...hyper, ...VARIANT_HYPER[v] },
        }); // warm-up
    for (let r = 0; r < repeats; r++) {
      for (const { variants } of prepared) {
        for (let k = 0; k < VARIANTS.length; k++) {
          const key = VARIANTS[(k + r) % VARIANTS.length] ?? 'none';
          const v = variants[key];
          const started = performance.now();
          const stats = await engine.call('train_step', {
            samples: v.samples,
            hyper: { ...hyper, ...VARIANT_HYPER[key] },
          });
          v.seconds.push((performance.now() - started) / 1000);
          v.losses.push(stats.loss);
          v.gradNorms.push(stats.gradNorm);
        }
      }
    }

    console.log('');
    console.log(
      `${'setting'.padEnd(30)} eps calls  tokens none/linear/tree    update s none/linear/tree/tree-dense  speed-up lin/tree/tree-dense  tokens ÷ lin/tree  merge ms lin/tree (share of saved)  Δ loss/grad vs none`,
    );
    const summary: Record<
      string,
      { linear: number; tree: number; treeDense: number; ratioLinear: number; ratioTree: number; share: number }
    > = {};
    let mergeMs = 0;
    let mergeMsLinear = 0;
    let episodes = 0;
    for (const { setting, variants } of prepared) {
      const [none, linear, tree, treeDense] = [variants.none, variants.linear, variants.tree, variants.treeDense];
      const t = {
        none: median(none.seconds),
        linear: median(linear.seconds),
        tree: median(tree.seconds),
        treeDense: median(treeDense.seconds),
      };
      const speedLinear = t.none / t.linear;
      const speedTree = t.none / t.tree;
      const speedTreeDense = t.none / t.treeDense;
      // Merge time as a share of the update time it saves (undefined where it saves nothing measurable).
      const shareOf = (ms: number, saved: number): number | undefined =>
        saved > 0.05 * t.none ? ms / 1000 / saved : undefined;
      const shareLinear = shareOf(linear.mergeMs, t.none - t.linear);
      const shareTree = shareOf(tree.mergeMs, t.none - t.tree);
      const pct = (x: number | undefined): string => (x === undefined ? '—' : `${(x * 100).toFixed(2)}%`);
      // Agreement with `none`: the gradient norm relative; the loss relative to its scale, the mean
      // |advantage| of the trained tokens (the loss itself can cancel to ~0 within a group).
      const scale = Math.max(Math.abs(median(none.losses)), advantageScale(none.samples));
      const agree = (v: Variant): number =>
        Math.max(
          Math.abs(median(v.gradNorms) - median(none.gradNorms)) / Math.max(1e-12, median(none.gradNorms)),
          Math.abs(median(v.losses) - median(none.losses)) / Math.max(1e-12, scale),
        );
      const lossDiff = Math.max(agree(linear), agree(tree), agree(treeDense));
      const calls = setting.episodes.reduce((n, e) => n + e.timelines.length, 0);
      summary[setting.key] = {
        linear: speedLinear,
        tree: speedTree,
        treeDense: speedTreeDense,
        ratioLinear: none.tokens / linear.tokens,
        ratioTree: none.tokens / tree.tokens,
        share: Math.max(shareLinear ?? 0, shareTree ?? 0),
      };
      mergeMs += tree.mergeMs;
      mergeMsLinear += linear.mergeMs;
      episodes += setting.episodes.length;
      console.log(
        `${setting.label.padEnd(30)} ${String(setting.episodes.length).padStart(3)} ${String(calls).padStart(5)}  ` +
          `${`${none.tokens}/${linear.tokens}/${tree.tokens}`.padEnd(24)} ${`${t.none.toFixed(2)}/${t.linear.toFixed(2)}/${t.tree.toFixed(2)}/${t.treeDense.toFixed(2)}`.padEnd(37)} ` +
          `${`${speedLinear.toFixed(2)}×/${speedTree.toFixed(2)}×/${speedTreeDense.toFixed(2)}×`.padEnd(29)} ${`${(none.tokens / linear.tokens).toFixed(2)}/${(none.tokens / tree.tokens).toFixed(2)}`.padEnd(18)} ` +
          `${`${linear.mergeMs.toFixed(2)}/${tree.mergeMs.toFixed(2)} (${pct(shareLinear)}/${pct(shareTree)})`.padEnd(35)} ${lossDiff.toExponential(1)}`,
      );
    }
    const perK = (ms: number): number => (ms / Math.max(1, episodes)) * 1000;
    console.log('');
    console.log(
      `merge time per 1,000 episodes (mix above): linear ${perK(mergeMsLinear).toFixed(1)} ms, tree (linear + group packing) ${perK(mergeMs).toFixed(1)} ms`,
    );
    const ten = summary['10'];
    const grp = summary['group'];
    const worstShare = Math.max(...Object.values(summary).map((s) => s.share));
    console.log(
      `targets: linear speed-up at 10 turns ${ten ? `${ten.linear.toFixed(2)}× (≥ 6×: ${ten.linear >= 6 ? 'met' : 'missed'})` : 'not run'}; ` +
        `tree beyond linear on the group ${grp?.tree.toFixed(2)}× vs ${grp?.linear.toFixed(2)}× (${(grp?.tree ?? 0) > (grp?.linear ?? 0) ? 'met' : 'missed'}); ` +
        `merge cost ≤ ${(worstShare * 100).toFixed(2)}% of the update time saved (< 1%: ${worstShare < 0.01 ? 'met' : 'missed'}); ` +
        `group tree speed-up ${grp?.tree.toFixed(2)}× vs ${grp?.ratioTree.toFixed(2)}× fewer tokens (≥ 0.7×: ${(grp?.tree ?? 0) >= 0.7 * (grp?.ratioTree ?? Infinity) ? 'met' : 'missed'}; dense mask ${grp?.treeDense.toFixed(2)}×)`,
    );
    return {
      bench: 'merge',
      speedup_linear_10: ten ? round(ten.linear, 2) : null,
      speedup_tree_10: ten ? round(ten.tree, 2) : null,
      speedup_tree_group: grp ? round(grp.tree, 2) : null,
      speedup_tree_dense_group: grp ? round(grp.treeDense, 2) : null,
      tree_group_token_ratio: grp ? round(grp.ratioTree, 2) : null,
      token_ratio_linear_10: ten ? round(ten.ratioLinear, 2) : null,
      merge_ms_per_1k: round(perK(mergeMs), 1),
      speedup_linear_group: grp ? round(grp.linear, 2) : null,
      merge_share_max: round(worstShare, 4),
    };
  } finally {
    await engine.dispose();
  }
}
