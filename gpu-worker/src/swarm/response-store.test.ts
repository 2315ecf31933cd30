import { describe, expect, it } from 'vitest';
import { ResponseStore } from './response-store';

describe('ResponseStore', () => {
  it('keeps conversations per episode, bounded, and drops an episode whole', () => {
    const s = new ResponseStore(2);
    s.put('ep_a', 'r1', [{ role: 'user', content: '1' }]);
    s.put('ep_a', 'r2', [{ role: 'user', content: '2' }]);
    s.put('ep_b', 'r1', [{ role: 'user', content: 'b' }]);
    expect(s.get('ep_a', 'r1')?.[0]?.content).toBe('1');
    expect(s.get('ep_b', 'r2')).toBeUndefined();
    s.put('ep_a', 'r3', [{ role: 'user', content: '3' }]);
    expect(s.get('ep_a', 'r1')).toBeUndefined();
    expect(s.get('ep_a', 'r3')?.[0]?.content).toBe('3');
    s.dropEpisode('ep_a');
    expect(s.get('ep_a', 'r3')).toBeUndefined();
    expect(s.episodes).toBe(1);
  });
});
