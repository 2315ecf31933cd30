// `npm run pretrain`: reproducibly rebuilds the built-in model — synthetic imperfect transcripts
// of both example tasks (train splits only) → tokenizer + Qwen2 model trained by supervised
// learning in the engine's Python → held-out success measured and appended to TRAINING.md.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ENGINE_DIR, findPython } from '../../gpu-worker/src/engine/find-python';
import { BUILTIN_MODEL_DIR, REPO_ROOT } from '../../gpu-worker/src/resources';
import { toJsonl } from '../../resources/examples/index';
import { benchWarmstart } from '../../bench/warmstart';
import { buildTranscripts, describeStats } from './make-transcripts';

const OptionsSchema = z.object({
  out: z.string().default(BUILTIN_MODEL_DIR),
  seed: z.coerce.number().int().default(0),
  calculator: z.coerce.number().int().min(1).default(4000),
  guess: z.coerce.number().int().min(1).default(2000),
  epochs: z.coerce.number().positive().default(3),
  lr: z.coerce.number().positive().default(3e-3),
  size: z.enum(['test', 'default']).default('default'),
  vocabSize: z.coerce.number().int().min(300).default(2048),
  threads: z.coerce.number().int().positive().default(2),
  maxMinutes: z.coerce.number().positive().default(30),
});

type Options = z.infer<typeof OptionsSchema>;

/** The command line's options, or the usage and exit 2. */
function parseOptions(): Options {
  const { values } = parseArgs({
    options: Object.fromEntries(
      ['out', 'seed', 'calculator', 'guess', 'epochs', 'lr', 'size', 'vocab-size', 'threads', 'max-minutes'].map(
        (k) => [k, { type: 'string' as const }],
      ),
    ),
  });
  const parsed = OptionsSchema.safeParse({
    ...values,
    vocabSize: values['vocab-size'],
    maxMinutes: values['max-minutes'],
  });
  if (!parsed.success) {
    console.error(
      'usage: npm run pretrain -- [--out DIR] [--seed S] [--calculator N] [--guess M] [--epochs E] [--lr LR]' +
        ` [--size test|default] [--vocab-size V] [--threads T] [--max-minutes M]\n${z.prettifyError(parsed.error)}`,
    );
    process.exit(2);
  }
  return parsed.data;
}

/** The arguments of the engine's pretraining run (Python, `agentjet_engine.pretrain`). */
function engineArgs(o: Options, work: string, out: string): string[] {
  return [
    '-m',
    'agentjet_engine.pretrain',
    '--transcripts',
    join(work, 'train.jsonl'),
    '--eval-transcripts',
    join(work, 'val.jsonl'),
    '--out',
    out,
    '--size',
    o.size,
    '--vocab-size',
    String(o.vocabSize),
    '--epochs',
    String(o.epochs),
    '--lr',
    String(o.lr),
    '--seed',
    String(o.seed),
    '--threads',
    String(o.threads),
    '--max-minutes',
    String(o.maxMinutes),
  ];
}

async function main(): Promise<void> {
  const o = parseOptions();
  const work = join(REPO_ROOT, 'build', 'pretrain');
  mkdirSync(work, { recursive: true });
  const set = buildTranscripts({ seed: o.seed, calculator: o.calculator, guess: o.guess });
  writeFileSync(join(work, 'train.jsonl'), toJsonl(set.train));
  writeFileSync(join(work, 'val.jsonl'), toJsonl(set.val));
  const stats = describeStats(set);
  for (const line of stats) console.log(line);

  const out = resolve(o.out);
  const args = engineArgs(o, work, out);
  console.log(`training: ${findPython()} ${args.join(' ')}`);
  const res = spawnSync(findPython(), args, { cwd: ENGINE_DIR, stdio: 'inherit' });
  if (res.status !== 0) {
    console.error(`pretraining failed (exit ${res.status ?? res.signal})`);
    process.exit(1);
  }

  const summary = await benchWarmstart(['--model', out, '--threads', String(o.threads)]);
  appendFileSync(
    join(out, 'TRAINING.md'),
    [
      '',
      '## Transcripts (`npm run pretrain`, TypeScript side)',
      '',
      '```',
      `npm run pretrain -- --seed ${o.seed} --calculator ${o.calculator} --guess ${o.guess} --epochs ${o.epochs}` +
        ` --lr ${o.lr} --size ${o.size} --vocab-size ${o.vocabSize} --threads ${o.threads}`,
      ...stats,
      '```',
      '',
      '## Held-out success of the warm start (`npm run bench -- warmstart`)',
      '',
      '```',
      JSON.stringify(summary),
      '```',
      '',
    ].join('\n'),
  );
  console.log(JSON.stringify(summary));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exit(1);
});
