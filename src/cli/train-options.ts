// `agentjet train` options: the schema of its flags and its help text.
import { z } from 'zod';
import { StrategySchema } from '../shared/swarm-protocol';

const num = z.coerce.number();

export const CLIENT_KINDS = ['openai', 'vercel', 'fetch', 'python', 'langchain', 'agents'] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

export const TrainOptionsSchema = z
  .object({
    clients: num.int().positive().max(64).default(2),
    steps: num.int().positive().default(10),
    client: z.enum(CLIENT_KINDS).default('openai'),
    strategy: StrategySchema.optional(),
    batch: num.int().positive().optional(),
    groupSize: num.int().positive().optional(),
    lr: num.positive().optional(),
    maxTokens: num.int().positive().optional(),
    threads: num.int().positive().optional(),
    seed: num.int().optional(),
    mix: num.min(0).max(1).optional(),
    evalEvery: num.int().min(0).default(0),
    evalEpisodes: num.int().positive().default(16),
    runDir: z.string().optional(),
    port: num.int().min(0).max(65_535).default(0),
  })
  .strict();
export type TrainOptions = z.infer<typeof TrainOptionsSchema>;

export const trainHelp = `agentjet train <example> [options]   headless training: a local worker (built-in model) + N clients
  <example>                  calculator-agent, guess-number, or cocktail (one model on a mix of both)
  --mix P                    cocktail only: share of calculator-agent tasks, the rest guess-number
                             (default 0.5); step lines, metrics and evals then report each task
  --clients N                client processes (default 2)
  --steps K                  stop after K training steps (default 10)
  --client openai|vercel|fetch|python|langchain|agents   which client implementation to run: the
                             openai package, the Vercel AI SDK, raw fetch, Python, LangChain.js
                             (tools bound to ChatOpenAI) or the OpenAI Agents SDK (Responses API)
                             (default openai)
  --strategy C1..C5 --batch N --group-size G --lr LR   training settings, as for \`agentjet worker\`
  --max-tokens N --threads T --seed S                  worker settings, as for \`agentjet worker\`
  --eval-every M             every M steps (and once before training) play --eval-episodes held-out
                             tasks as eval episodes and print the success rate (default 0: off)
  --eval-episodes E          eval tasks per evaluation (default 16)
  --run-dir DIR              worker files, metrics.jsonl, eval.jsonl, worker.log, clients.log (default runs/train-<time>)
  --port P                   the worker's HTTP port (default 0: a free one)`;
