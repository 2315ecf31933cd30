// Sum-of-digits swarm client: each episode asks the policy for the digit sum of a number through
// the official `openai` package (the worker's OpenAI-compatible API, with the episode's key) and
// ends with the reward of reward.ts. runTaskClient plays train tasks (AGENTJET_GROUP_SIZE at a
// time) or, with AGENTJET_SPLIT=eval, the eval split once as eval episodes.
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { loadJsonl, runTaskClient } from 'agentjet-workbench/sdk';
import { parseTask, reward, SYSTEM_PROMPT, type Task } from './reward';

const split = (name: 'train' | 'eval'): Task[] =>
  loadJsonl(fileURLToPath(new URL(`./data/${name}.jsonl`, import.meta.url)), parseTask);

await runTaskClient<Task>({
  train: split('train'),
  eval: split('eval'),
  play: async (task, { baseUrl, apiKey, model, signal }) => {
    const openai = new OpenAI({ baseURL: baseUrl, apiKey, maxRetries: 2 });
    const question = `What is the sum of the digits of ${task.number}?`;
    const res = await openai.chat.completions.create(
      {
        model,
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: question },
        ],
        max_tokens: 48,
      },
      { signal },
    );
    const answer = res.choices[0]?.message.content ?? '';
    return reward(task, [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: question },
      { role: 'assistant', content: answer },
    ]);
  },
});
