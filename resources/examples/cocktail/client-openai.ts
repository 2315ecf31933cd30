// Cocktail swarm client (`openai` package): per task, a calculator-agent task with probability
// AGENTJET_MIX (default 0.5), else a guess-number task, played with that task's env; one model
// learns both. The choice is seeded by AGENTJET_CLIENT_ID through the swarm loop's PRNG.
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { runEpisode } from '../../../src/shared/episode';
import { calculatorExample, guessNumberExample, loadExampleTasks, type CalcTask, type GuessTask } from '../index';
import { openaiPolicy } from '../openai-policy';
import { runSwarmLoop } from '../swarm-loop';
import { parseMix, pickMixed } from './mix';

const calc = loadExampleTasks(
  calculatorExample,
  'train',
  fileURLToPath(new URL('../calculator-agent/data/train.jsonl', import.meta.url)),
);
const guess = loadExampleTasks(
  guessNumberExample,
  'train',
  fileURLToPath(new URL('../guess-number/data/train.jsonl', import.meta.url)),
);
const mix = parseMix(process.env['AGENTJET_MIX']);

const isGuess = (t: CalcTask | GuessTask): t is GuessTask => 'secret' in t;

await runSwarmLoop<CalcTask | GuessTask>({
  tasks: [...calc, ...guess],
  pickTask: (rng) => pickMixed(rng, mix, calc, guess),
  play: (task, policy) =>
    isGuess(task) ? runEpisode(guessNumberExample.env, task, policy) : runEpisode(calculatorExample.env, task, policy),
  policy: ({ baseUrl, apiKey, model, signal }) =>
    openaiPolicy(new OpenAI({ baseURL: baseUrl, apiKey, maxRetries: 2 }), { model, signal }),
});
