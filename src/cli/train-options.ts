// `agentjet train` options: its own flags, the worker options it passes through (declared in
// src/shared/options/declarations.ts, with the worker's defaults unless a preset below says
// otherwise), and its help text.
import { z } from 'zod';
import { CLIENT_KINDS } from '../node/train-clients';
import { flagShape, helpLines, TRAINING_OPTIONS, WORKER_OPTIONS } from '../shared/options/index';

const num = z.coerce.number();

/** The training and worker options `agentjet train` passes to its worker. */
export const TRAIN_TRAINING_KEYS = ['strategy', 'batch', 'groupSize', 'lr', 'defaultMaxTokens'] as const;
export const TRAIN_WORKER_KEYS = ['threads', 'seed', 'port'] as const;
/** Where `agentjet train` departs from the worker's defaults: its worker takes a free port. */
export const TRAIN_PRESETS = { port: 0 } as const;

const own = {
  clients: num.int().positive().max(64).default(2),
  steps: num.int().positive().default(10),
  client: z.enum(CLIENT_KINDS).default('openai'),
  mix: num.min(0).max(1).optional(),
  evalEvery: num.int().min(0).default(0),
  evalEpisodes: num.int().positive().default(16),
  runDir: z.string().optional(),
};

export const TrainOptionsSchema = z
  .object({
    ...own,
    ...flagShape(TRAINING_OPTIONS, TRAIN_TRAINING_KEYS),
    ...flagShape(WORKER_OPTIONS, TRAIN_WORKER_KEYS, TRAIN_PRESETS),
  })
  .strict();
export type TrainOptions = z.infer<typeof TrainOptionsSchema>;

export const trainHelp = [
  'agentjet train <example> [options]   headless training: a local worker (built-in model) + N clients',
  '  <example>                  calculator-agent, guess-number, or cocktail (one model on a mix of both)',
  '  --mix P                    cocktail only: share of calculator-agent tasks, the rest guess-number',
  '                             (default 0.5); step lines, metrics and evals then report each task',
  '  --clients N                client processes (default 2)',
  '  --steps K                  stop after K training steps (default 10)',
  '  --client openai|vercel|fetch|python|langchain|agents   which client implementation to run: the',
  '                             openai package, the Vercel AI SDK, raw fetch, Python, LangChain.js',
  '                             (tools bound to ChatOpenAI) or the OpenAI Agents SDK (Responses API)',
  '                             (default openai)',
  '  --eval-every M             every M steps (and once before training) play --eval-episodes held-out',
  '                             tasks as eval episodes and print the success rate (default 0: off)',
  '  --eval-episodes E          eval tasks per evaluation (default 16)',
  '  --run-dir DIR              worker files, metrics.jsonl, eval.jsonl, worker.log, clients.log (default runs/train-<time>)',
  '  worker settings, as for `agentjet worker`:',
  ...helpLines(TRAINING_OPTIONS, { keys: TRAIN_TRAINING_KEYS }),
  ...helpLines(WORKER_OPTIONS, { keys: TRAIN_WORKER_KEYS, presets: TRAIN_PRESETS }),
].join('\n');
