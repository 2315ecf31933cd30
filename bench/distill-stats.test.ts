import { describe, expect, it } from 'vitest';
import { curvesSvg, gainPp, minutesTo } from './distill-stats';

const curve = [
  { minutes: 0, success: 0.3, episodes: 100 },
  { minutes: 2, success: 0.4, episodes: 100 },
  { minutes: 4, success: 0.55, episodes: 100 },
];

describe('distill bench figures', () => {
  it('finds the first point at or above a target, or null', () => {
    expect(minutesTo(curve, 0.4)).toBe(2);
    expect(minutesTo(curve, 0.5)).toBe(4);
    expect(minutesTo(curve, 0.6)).toBeNull();
  });
  it('measures the gain from first to last point in pp', () => {
    expect(gainPp(curve)).toBeCloseTo(25);
    expect(gainPp([])).toBe(0);
  });
  it('draws one line per curve', () => {
    const svg = curvesSvg({ rl: curve, distill: curve }, 0.5);
    expect(svg.match(/<polyline/g)).toHaveLength(2);
  });
});
