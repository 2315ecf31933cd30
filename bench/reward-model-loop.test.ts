import { describe, expect, it } from 'vitest';
import { pickPlan } from './reward-model-loop';

describe('pickPlan', () => {
  it("asks the label queue's modes a round's pick names, for the round's whole count", () => {
    expect(pickPlan('uncertain', 32)).toEqual([{ mode: 'points', limit: 32 }]);
    expect(pickPlan('top', 32)).toEqual([{ mode: 'top', limit: 32 }]);
    expect(pickPlan('mix', 33)).toEqual([
      { mode: 'top', limit: 17 },
      { mode: 'points', limit: 16 },
    ]);
    expect(pickPlan('mix', 1)).toEqual([{ mode: 'top', limit: 1 }]);
  });
});
