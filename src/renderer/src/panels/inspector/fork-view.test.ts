import { describe, expect, it } from 'vitest';
import { DEFAULT_FORK_FORM, forkParams, meanLogprob, probeSpec, rewardLabel } from './fork-view';

const at = { runId: 'r', episodeId: 'e', callIndex: 2 };

describe('fork view', () => {
  it('turns the form into forkCall params and refuses bad values', () => {
    expect(forkParams(DEFAULT_FORK_FORM, at)).toEqual({
      ok: true,
      params: { ...at, k: 4, temperature: 1, maxTokens: 96 },
    });
    const edited = forkParams({ ...DEFAULT_FORK_FORM, maxTokens: '', editOn: true, edit: '= 3' }, at);
    expect(edited).toEqual({ ok: true, params: { ...at, k: 4, temperature: 1, edit: { content: '= 3' } } });
    expect(forkParams({ ...DEFAULT_FORK_FORM, k: '33' }, at).ok).toBe(false);
    expect(forkParams({ ...DEFAULT_FORK_FORM, temperature: '' }, at).ok).toBe(false);
    expect(forkParams({ ...DEFAULT_FORK_FORM, maxTokens: '0' }, at).ok).toBe(false);
  });

  it('summarises a continuation: mean logprob and reward', () => {
    expect(meanLogprob([])).toBeNull();
    expect(meanLogprob([-1, -3])).toBe(-2);
    expect(rewardLabel({ ok: true, reward: 1, success: true })).toEqual({ text: 'reward 1 ✓', error: false });
    expect(rewardLabel({ ok: true, reward: 0.12345 })).toEqual({ text: 'reward 0.1235', error: false });
    expect(rewardLabel({ ok: false, error: 'threw' })).toEqual({ text: 'reward error: threw', error: true });
    expect(rewardLabel(null).text).toBe('reward —');
  });

  it('saves a fork as a probe with its prefix and settings', () => {
    const params = { ...at, k: 3, temperature: 0.5, edit: { content: 'x' } };
    expect(probeSpec(params, '<tool_call>')).toEqual({
      episodeId: 'e',
      callIndex: 2,
      k: 3,
      temperature: 0.5,
      edit: { content: 'x' },
      contains: '<tool_call>',
    });
  });
});
