// Calculator-agent swarm client with the OpenAI Agents SDK for TypeScript (`@openai/agents`, on the
// Responses API): each episode is one `run()` of an Agent with the `calc` tool, which the SDK calls
// and the env answers (resources/examples/agents-episode.ts); the episode ends with the env's score.
import { fileURLToPath } from 'node:url';
import { playWithAgents } from '../agents-episode';
import { calculatorExample, loadExampleTasks } from '../index';
import { runSwarmLoop } from '../swarm-loop';

const tasks = loadExampleTasks(
  calculatorExample,
  'train',
  fileURLToPath(new URL('./data/train.jsonl', import.meta.url)),
);

await runSwarmLoop({
  tasks,
  playEpisode: (task, { baseUrl, apiKey, model, signal }) =>
    playWithAgents(calculatorExample.env, task, { baseUrl, apiKey, model, signal }),
});
