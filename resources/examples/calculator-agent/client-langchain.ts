// Calculator-agent swarm client with LangChain.js (`@langchain/openai` ChatOpenAI with the `calc`
// tool bound to the chat model): each assistant turn is one `invoke` of the tool-bound model
// (resources/examples/langchain-policy.ts); the env answers the tool calls — the same turn-by-turn
// loop as client-openai.ts — and each episode ends with the env's score.
import { fileURLToPath } from 'node:url';
import { calculatorExample, loadExampleTasks } from '../index';
import { langchainPolicy } from '../langchain-policy';
import { runSwarmLoop } from '../swarm-loop';

const tasks = loadExampleTasks(
  calculatorExample,
  'train',
  fileURLToPath(new URL('./data/train.jsonl', import.meta.url)),
);

await runSwarmLoop({
  env: calculatorExample.env,
  tasks,
  policy: ({ baseUrl, apiKey, model, signal }) => langchainPolicy({ baseUrl, apiKey, model, signal }),
});
