// Calculator-agent swarm client whose reward is learned: each episode plays the env through the
// official `openai` package, then its conversation is scored by the reward model named in
// reward-model-ref.ts (onnxruntime-node on this CPU; the episodes of a group share one batched run) and
// combined with a format rule (reward.ts). Until a model is deployed, the rule alone is the reward.
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { RewardModel } from '../../../src/sdk/index';
import { runEpisode } from '../../../src/shared/episode';
import { calculatorEnv, calculatorExample, loadExampleTasks } from '../index';
import { openaiPolicy } from '../openai-policy';
import { runSwarmLoop } from '../swarm-loop';
import { rewardModelPointer } from './reward-model-ref';
import { combineReward, weightsFromEnv } from './reward';

const tasks = loadExampleTasks(
  calculatorExample,
  'train',
  fileURLToPath(new URL('../calculator-agent/data/train.jsonl', import.meta.url)),
);
const weights = weightsFromEnv(process.env);
const rm = await RewardModel.fromPointer(rewardModelPointer);
console.log(
  rm
    ? `reward model v${rm.version} (${rm.sha256.slice(0, 12)}) · weights rule ${weights.rule} rm ${weights.rm}`
    : `no reward model deployed: the format rule is the reward (weight ${weights.rule})`,
);

await runSwarmLoop({
  tasks,
  policy: ({ baseUrl, apiKey, model, signal }) =>
    openaiPolicy(new OpenAI({ baseURL: baseUrl, apiKey, maxRetries: 2 }), { model, signal }),
  play: async (task, policy) => {
    const r = await runEpisode(calculatorEnv, task, policy);
    const rmScore = rm ? await rm.scoreEpisode(r.messages, calculatorEnv.tools) : null;
    const { reward, metrics } = combineReward(
      { history: r.messages, verifiable: r.reward, rmScore, rmStats: rm?.manifest.scoreStats },
      weights,
    );
    return { ...r, reward, metrics: { ...r.metrics, ...metrics } };
  },
});
