import { describe, expect, it } from 'vitest';
import { rewardFileOf } from './inner-loop';

describe('rewardFileOf', () => {
  it('picks the shallowest editable reward.* file, else null', () => {
    const f = (path: string, editable = true) => ({ path, editable });
    expect(rewardFileOf([f('a/client.ts'), f('a/deep/reward.ts'), f('a/reward.ts')])).toBe('a/reward.ts');
    expect(rewardFileOf([f('reward.py'), f('src/shared/reward.ts', false)])).toBe('reward.py');
    expect(rewardFileOf([f('reward-model.ts'), f('reward.ts', false), f('myreward.ts')])).toBeNull();
  });
});
