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
      { rule: 0.5, rm: 2, form: 'standardized' },
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
      combineReward(
        { history, verifiable: 0, rmScore: -1, rmStats: { mean: 0, std: 1 } },
        { rule: 0, rm: 1, form: 'standardized' },
      ).reward,
    ).toBe(-1);
    // No model deployed: the rule alone, no rm metrics.
    const ruleOnly = combineReward({ history, verifiable: 1, rmScore: null });
    expect(ruleOnly.reward).toBe(1);
    expect(ruleOnly.metrics[RM_SCORE_METRIC]).toBeUndefined();
  });

  it('the probability form rewards P(good), bounded where the standardized score is not', () => {
    const history = [sys, ask, call, tool, answer('#### 5')];
    const form = { rule: 0, rm: 1, form: 'probability' } as const;
    const scored = (rmScore: number, loss: 'pointwise' | 'both' | 'pairwise') =>
      combineReward({ history, verifiable: 0, rmScore, rmStats: { mean: 2, std: 0.5 }, rmLoss: loss }, form).reward;
    // A logistic-trained score's zero is "undecided"; a pairwise-only model's is its training mean.
    expect(scored(0, 'pointwise')).toBeCloseTo(0.5);
    expect(scored(0, 'both')).toBeCloseTo(0.5);
    expect(scored(2, 'pairwise')).toBeCloseTo(0.5);
    expect(scored(Math.log(3), 'pointwise')).toBeCloseTo(0.75);
    // Far past anything labelled it saturates at 1; standardized it keeps growing.
    expect(scored(40, 'both')).toBeCloseTo(1);
    expect(
      combineReward(
        { history, verifiable: 0, rmScore: 40, rmStats: { mean: 2, std: 0.5 } },
        { ...form, form: 'standardized' },
      ).reward,
    ).toBeCloseTo(76);
    // An ensemble's score carries no loss or statistics: refused, not guessed.
    expect(() => combineReward({ history, verifiable: 0, rmScore: 1, rmStd: 0.2 }, form)).toThrow(
      'single reward model',
    );
  });

  it('reads the weights and the form from the environment', () => {
    expect(weightsFromEnv({})).toEqual({ rule: 1, rm: 1, form: 'standardized' });
    expect(weightsFromEnv({ AGENTJET_RULE_WEIGHT: '0', AGENTJET_RM_WEIGHT: '2.5' })).toEqual({
      rule: 0,
      rm: 2.5,
      form: 'standardized',
    });
    expect(weightsFromEnv({ AGENTJET_RM_FORM: 'probability' }).form).toBe('probability');
    expect(() => weightsFromEnv({ AGENTJET_RM_WEIGHT: 'lots' })).toThrow('AGENTJET_RM_WEIGHT must be a number');
    expect(() => weightsFromEnv({ AGENTJET_RM_FORM: 'logit' })).toThrow('AGENTJET_RM_FORM must be one of');
  });
});

describe('calculator-rm pointer', () => {
  it('ships as what Deploy writes when no model is deployed', () => {
    expect(readFileSync(new URL('./reward-model-ref.ts', import.meta.url), 'utf8')).toBe(
      rewardModelPointerSource(null),
    );
  });
});
