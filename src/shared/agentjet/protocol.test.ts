import { describe, expect, it } from 'vitest';
import { claimFailCause, engineStatusOf } from './protocol';

describe('engineStatusOf', () => {
  it('maps worker states to AgentJet engine statuses', () => {
    const o = { holdSync: false, thresholdReached: false };
    expect(engineStatusOf('paused', o)).toBe('ENGINE.OFFLINE');
    expect(engineStatusOf('failed', o)).toBe('ENGINE.OFFLINE');
    expect(engineStatusOf('recovering', o)).toBe('ENGINE.BOOTING');
    expect(engineStatusOf('updating', o)).toBe('ENGINE.WEIGHT_SYNCING');
    expect(engineStatusOf('checkpointing', o)).toBe('ENGINE.WEIGHT_EXPORTING');
    expect(engineStatusOf('running', o)).toBe('ENGINE.ROLLING');
    expect(engineStatusOf('running', { holdSync: false, thresholdReached: true })).toBe('ENGINE.ROLLING_POST');
    expect(engineStatusOf('running', { holdSync: true, thresholdReached: true })).toBe('ENGINE.WEIGHT_SYNCING');
  });

  it('words claim refusals with the phrases AgentJet clients match', () => {
    expect(claimFailCause('ENGINE.WEIGHT_SYNCING')).toContain('Engine is syncing weights');
    expect(claimFailCause('ENGINE.ROLLING_POST')).toContain('Engine is in post-rolling phase');
    expect(claimFailCause('ENGINE.OFFLINE')).toMatch(/^Engine not ready\. Current status: \[ENGINE\.OFFLINE\]/);
  });
});
