// Calculator-agent swarm client with the official `openai` package: each episode plays the env's
// conversation through `openai.chat.completions.create` and ends with the env's score.
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { calculatorExample, loadExampleTasks } from '../index';
import { openaiPolicy } from '../openai-policy';
import { runSwarmLoop } from '../swarm-loop';

const tasks = loadExampleTasks(
  calculatorExample,
  'train',
  fileURLToPath(new URL('./data/train.jsonl', import.meta.url)),
);

await runSwarmLoop({
  env: calculatorExample.env,
  tasks,
  policy: ({ baseUrl, apiKey, model, signal }) =>
    openaiPolicy(new OpenAI({ baseURL: baseUrl, apiKey, maxRetries: 2 }), { model, signal }),
});
