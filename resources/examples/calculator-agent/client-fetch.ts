// Calculator-agent swarm client with raw `fetch` for the chat calls (the SDK only claims and ends
// episodes): the same loop as client-openai.ts, without any OpenAI library.
import { fileURLToPath } from 'node:url';
import { fetchPolicy } from '../fetch-policy';
import { calculatorExample, loadExampleTasks } from '../index';
import { runSwarmLoop } from '../swarm-loop';

const tasks = loadExampleTasks(
  calculatorExample,
  'train',
  fileURLToPath(new URL('./data/train.jsonl', import.meta.url)),
);

await runSwarmLoop({
  env: calculatorExample.env,
  tasks,
  policy: ({ baseUrl, apiKey, model, signal }) => fetchPolicy({ baseUrl, apiKey, model, signal }),
});
