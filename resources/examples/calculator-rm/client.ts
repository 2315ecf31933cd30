// Calculator-agent swarm client whose reward is learned: each episode plays the env through the
// official `openai` package, then its conversation is scored by the reward model named in
// reward-model-ref.ts (onnxruntime-node on this CPU; the episodes of a group share one batched run) and
// combined with a format rule (reward.ts). Until a model is deployed, the rule alone is the reward. An
// ensemble pointer scores with every member: mean − k·std of their standardized scores.
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { RewardEnsemble } from '../../../src/sdk/index';
import { runEpisode } from '../../../src/shared/episode';
import { calculatorEnv, calculatorExample, loadExampleTasks } from '../index';
import { openaiPolicy } from '../openai-policy';
import { runSwarmLoop } from '../swarm-loop';
import { rewardModelPointer } from './reward-model-ref';
import { combineReward, weightsFromEnv, type ScoredEpisode } from './reward';
import type { ChatMessage } from '../../../src/shared/chat';

const tasks = loadExampleTasks(
  calculatorExample,
  'train',
  fileURLToPath(new URL('../calculator-agent/data/train.jsonl', import.meta.url)),
);
const weights = weightsFromEnv(process.env);
const rm = await RewardEnsemble.fromPointer(rewardModelPointer);
const single = rm?.members.length === 1 ? rm.members[0]! : null;
if (rm && !single && weights.form === 'probability')
  throw new Error('AGENTJET_RM_FORM=probability needs a single reward model; the deployed pointer is an ensemble');
const penalty = single ? '' : `; mean − ${rm?.stdPenalty}·std`;
console.log(
  rm
    ? `reward model ${rm.versions} (${rm.members[0]!.sha256.slice(0, 12)}${penalty})` +
        ` · weights rule ${weights.rule} rm ${weights.rm} (${weights.form})`
    : `no reward model deployed: the format rule is the reward (weight ${weights.rule})`,
);

/** One model: its raw score and training statistics; an ensemble: its penalized standardized score. */
async function score(history: ChatMessage[]): Promise<Pick<ScoredEpisode, 'rmScore' | 'rmStats' | 'rmLoss' | 'rmStd'>> {
  if (single)
    return {
      rmScore: await single.scoreEpisode(history, calculatorEnv.tools),
      rmStats: single.manifest.scoreStats,
      rmLoss: single.manifest.loss,
    };
  if (!rm) return { rmScore: null };
  const s = await rm.scoreEpisode(history, calculatorEnv.tools);
  return { rmScore: s.score, rmStd: s.std };
}

await runSwarmLoop({
  tasks,
  policy: ({ baseUrl, apiKey, model, signal }) =>
    openaiPolicy(new OpenAI({ baseURL: baseUrl, apiKey, maxRetries: 2 }), { model, signal }),
  play: async (task, policy) => {
    const r = await runEpisode(calculatorEnv, task, policy);
    const { reward, metrics } = combineReward(
      { history: r.messages, verifiable: r.reward, ...(await score(r.messages)) },
      weights,
    );
    return { ...r, reward, metrics: { ...r.metrics, ...metrics } };
  },
});
