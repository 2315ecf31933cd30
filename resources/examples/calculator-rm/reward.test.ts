import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/shared/chat';
import { rewardModelPointerSource, RM_SCORE_METRIC, VERIFIABLE_REWARD_METRIC } from '../../../src/shared/reward-model';
import { combineReward, formatRule, weightsFromEnv } from './reward';

const sys: ChatMessage = { role: 'system', content: 's' };
const ask: ChatMessage = { role: 'user', content: 'What is 2+3?' };
const call: ChatMessage = {
  role: 'assistant',
  content: null,
  tool_calls: [{ id: 'c', type: 'function', function: { name: 'calc', arguments: '{"expression": "2+3"}' } }],
};
const tool: ChatMessage = { role: 'tool', content: '5', tool_call_id: 'c' };
const answer = (text: string): ChatMessage => ({ role: 'assistant', content: text });

describe('calculator-rm reward', () => {
  it('the rule checks the answer format, not its correctness', () => {
    expect(formatRule([sys, ask, call, tool, answer('So 5.\n#### 5')])).toBe(1);
    expect(formatRule([sys, ask, call, tool, answer('#### 6')])).toBe(1);
    expect(formatRule([sys, ask, call, tool, answer('five')])).toBe(0);
    expect(formatRule([sys, ask, call, tool])).toBe(0);
    expect(formatRule([sys, ask, answer('<tool_call>\n{bad}\n</tool_call>'), tool, answer('#### 5')])).toBe(0);
  });

  it('adds the standardized reward-model score and reports both rewards as metrics', () => {
    const history = [sys, ask, call, tool, answer('#### 5')];
    const r = combineReward(
      { history, verifiable: 1, rmScore: 2.5, rmStats: { mean: 0.5, std: 2 } },
      { rule: 0.5, rm: 2 },
    );
    expect(r.reward).toBeCloseTo(0.5 + 2 * 1);
    expect(r.metrics).toMatchObject({
      rule_reward: 1,
      rm_reward: 1,
      [RM_SCORE_METRIC]: 2.5,
      [VERIFIABLE_REWARD_METRIC]: 1,
    });
    // The model's score alone (what the loop-closing benchmark trains on).
    expect(
      combineReward({ history, verifiable: 0, rmScore: -1, rmStats: { mean: 0, std: 1 } }, { rule: 0, rm: 1 }).reward,
    ).toBe(-1);
    // No model deployed: the rule alone, no rm metrics.
    const ruleOnly = combineReward({ history, verifiable: 1, rmScore: null });
    expect(ruleOnly.reward).toBe(1);
    expect(ruleOnly.metrics[RM_SCORE_METRIC]).toBeUndefined();
  });

  it('reads the weights from the environment', () => {
    expect(weightsFromEnv({})).toEqual({ rule: 1, rm: 1 });
    expect(weightsFromEnv({ AGENTJET_RULE_WEIGHT: '0', AGENTJET_RM_WEIGHT: '2.5' })).toEqual({ rule: 0, rm: 2.5 });
    expect(() => weightsFromEnv({ AGENTJET_RM_WEIGHT: 'lots' })).toThrow('AGENTJET_RM_WEIGHT must be a number');
  });
});

describe('calculator-rm pointer', () => {
  it('ships as what Deploy writes when no model is deployed', () => {
    expect(readFileSync(new URL('./reward-model-ref.ts', import.meta.url), 'utf8')).toBe(
      rewardModelPointerSource(null),
    );
  });
});
