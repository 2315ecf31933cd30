// Unit tests of the proposer's reward and the solver task built from a proposal.
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/shared/chat';
import { calculatorEnv } from '../calculator-agent/env';
import { parseProposal } from './proposal';
import { proposerScore, solverScore } from './reward';
import { solverTask } from './solver-task';

const task = { id: 't', a: 7, b: 5 };
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });

describe('proposerScore', () => {
  it('gives 0.5 for a valid question and 1 when the solver solves it', () => {
    const p = parseProposal('7 + 5', task);
    expect(proposerScore(p, false)).toMatchObject({
      reward: 0.5,
      success: false,
      metrics: { valid: 1, solved: 0, uses_operands: 1 },
    });
    expect(proposerScore(p, true)).toMatchObject({ reward: 1, success: true, metrics: { valid: 1, solved: 1 } });
  });
  it('gives 0 for an invalid question even if the solver solved the fallback', () => {
    expect(proposerScore(parseProposal('no idea', task), true)).toMatchObject({
      reward: 0,
      success: false,
      metrics: { valid: 0, solved: 0 },
    });
  });
});

describe('solverScore', () => {
  it('gives 1 for the right answer, 0.1 for a wrong #### N (0.2 after a calc call), 0 for no answer', () => {
    const calc = solverTask(task, parseProposal('7 * 5', task));
    const scoreOf = (text: string): number =>
      solverScore(calculatorEnv.score(calc, [...calculatorEnv.initialMessages(calc), assistant(text)]), true).reward;
    expect(scoreOf('#### 35')).toBe(1);
    expect(scoreOf('#### 36')).toBe(0.1);
    expect(scoreOf('thirty-five')).toBe(0);
    const call = { id: 'c1', type: 'function' as const, function: { name: 'calc', arguments: '{"expression":"7*5"}' } };
    const withCall = [
      ...calculatorEnv.initialMessages(calc),
      { role: 'assistant' as const, content: null, tool_calls: [call] },
      { role: 'tool' as const, content: '35', tool_call_id: 'c1' },
      assistant('#### 34'),
    ];
    expect(solverScore(calculatorEnv.score(calc, withCall), true).reward).toBeCloseTo(0.2);
  });
});

describe('solverTask', () => {
  it('asks the proposed expression with its true value, scored by calculator-agent', () => {
    const calc = solverTask(task, parseProposal('7 * (5 - 2)', task));
    expect(calc).toMatchObject({
      id: 't-solve',
      question: 'What is 7 * (5 - 2)?',
      answer: 21,
      template: 'proposed-bare',
    });
    const history = [...calculatorEnv.initialMessages(calc), assistant('#### 21')];
    expect(calculatorEnv.score(calc, history)).toMatchObject({ reward: 1, success: true });
    expect(calculatorEnv.score(calc, [...calculatorEnv.initialMessages(calc), assistant('#### 20')])).toMatchObject({
      reward: 0,
    });
  });
  it('falls back to a + b for an invalid proposal', () => {
    expect(solverTask(task, parseProposal('???', task))).toMatchObject({
      question: expect.stringMatching(/^\w+ has 7 \w+\. \w+ buys 5 more\. How many \w+ does \w+ have now\?$/),
      answer: 12,
      template: 'fallback-word-add',
    });
  });
});
