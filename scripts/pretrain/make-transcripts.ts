// Synthetic warm-start transcripts of the example tasks, from their TRAIN splits only.
// Usage: tsx scripts/pretrain/make-transcripts.ts --out DIR [--seed S] [--calculator N] [--guess M]
// Writes DIR/train.jsonl and DIR/val.jsonl (5%), and prints counts and success fractions.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ChatMessageSchema, ToolSchema, type Tool } from '../../src/shared/chat';
import type { EpisodeResult } from '../../src/shared/episode';
import { createPrng, deriveSeed, type Prng } from '../../src/shared/prng';
import { calcTranscript } from '../../resources/examples/calculator-agent/transcripts';
import { guessTranscript } from '../../resources/examples/guess-number/transcripts';
import {
  calculatorEnv,
  EXAMPLE_NAMES,
  guessNumberEnv,
  loadTasks,
  toJsonl,
  type ExampleName,
} from '../../resources/examples/index';

export const TranscriptLineSchema = z.object({
  task: z.enum(EXAMPLE_NAMES),
  taskId: z.string(),
  messages: z.array(ChatMessageSchema),
  tools: z.array(ToolSchema).nullable(),
});
export type TranscriptLine = z.infer<typeof TranscriptLineSchema>;

export interface TaskStats {
  count: number;
  successes: number;
  successRate: number;
  behaviours: Record<string, { count: number; successes: number }>;
}

export interface TranscriptSet {
  train: TranscriptLine[];
  val: TranscriptLine[];
  stats: Record<ExampleName, TaskStats>;
}

export interface TranscriptOptions {
  seed: number;
  calculator: number;
  guess: number;
  /** Share of lines held out for validation (default 0.05). */
  valFraction?: number;
}

type MakeTranscript<T> = (task: T, r: Prng) => { behaviour: string; episode: EpisodeResult };

/** Plays `count` transcripts cycling through the tasks, each with its own derived PRNG. */
function play<T extends { id: string }>(
  name: ExampleName,
  tools: Tool[],
  tasks: readonly T[],
  count: number,
  seed: number,
  make: MakeTranscript<T>,
) {
  const stats: TaskStats = { count: 0, successes: 0, successRate: 0, behaviours: {} };
  const lines: TranscriptLine[] = [];
  for (let i = 0; i < count; i++) {
    const task = tasks[i % tasks.length];
    if (task === undefined) throw new Error(`${name}: no train tasks`);
    const { behaviour, episode } = make(task, createPrng(deriveSeed(seed, `${name}:${i}`)));
    lines.push({ task: name, taskId: task.id, messages: episode.messages, tools: tools.length > 0 ? tools : null });
    const b = (stats.behaviours[behaviour] ??= { count: 0, successes: 0 });
    b.count++;
    stats.count++;
    if (episode.success) {
      b.successes++;
      stats.successes++;
    }
  }
  stats.successRate = stats.count === 0 ? 0 : stats.successes / stats.count;
  return { lines, stats };
}

export function buildTranscripts(opts: TranscriptOptions): TranscriptSet {
  const calc = play(
    'calculator-agent',
    calculatorEnv.tools,
    loadTasks('calculator-agent', 'train'),
    opts.calculator,
    opts.seed,
    calcTranscript,
  );
  const guess = play(
    'guess-number',
    guessNumberEnv.tools,
    loadTasks('guess-number', 'train'),
    opts.guess,
    opts.seed,
    guessTranscript,
  );
  const all = createPrng(deriveSeed(opts.seed, 'split')).shuffle([...calc.lines, ...guess.lines]);
  const nVal = Math.round(all.length * (opts.valFraction ?? 0.05));
  return {
    train: all.slice(nVal),
    val: all.slice(0, nVal),
    stats: { 'calculator-agent': calc.stats, 'guess-number': guess.stats },
  };
}

/** Human-readable summary lines of a transcript set. */
export function describeStats(set: TranscriptSet): string[] {
  const out = [`train ${set.train.length} lines, val ${set.val.length} lines`];
  for (const name of EXAMPLE_NAMES) {
    const s = set.stats[name];
    out.push(`${name}: ${s.count} transcripts, success ${(100 * s.successRate).toFixed(1)}%`);
    for (const [b, v] of Object.entries(s.behaviours)) {
      out.push(
        `  ${b.padEnd(18)} ${String(v.count).padStart(6)}  success ` +
          `${v.count === 0 ? '-' : ((100 * v.successes) / v.count).toFixed(1)}%`,
      );
    }
  }
  return out;
}

const CliSchema = z.object({
  out: z.string().min(1),
  seed: z.coerce.number().int().default(0),
  calculator: z.coerce.number().int().min(0).default(4000),
  guess: z.coerce.number().int().min(0).default(2000),
});

function main(argv: string[]): void {
  const { values } = parseArgs({
    args: argv,
    options: {
      out: { type: 'string' },
      seed: { type: 'string' },
      calculator: { type: 'string' },
      guess: { type: 'string' },
    },
  });
  const parsed = CliSchema.safeParse(values);
  if (!parsed.success) {
    console.error(
      'usage: tsx scripts/pretrain/make-transcripts.ts --out DIR [--seed S] [--calculator N] [--guess ' +
        `M]\n${z.prettifyError(parsed.error)}`,
    );
    process.exit(2);
  }
  const { out, ...opts } = parsed.data;
  const set = buildTranscripts(opts);
  const dir = resolve(out);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'train.jsonl'), toJsonl(set.train));
  writeFileSync(join(dir, 'val.jsonl'), toJsonl(set.val));
  for (const line of describeStats(set)) console.log(line);
  console.log(`wrote ${join(dir, 'train.jsonl')} and ${join(dir, 'val.jsonl')}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href)
  main(process.argv.slice(2));
