import { describe, expect, it } from 'vitest';
import { crossingMinutes, curvesSvg, gainPp, meanCurve, minutesTo } from './distill-stats';

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
  it('interpolates where the curve first crosses a target', () => {
    expect(crossingMinutes(curve, 0.3)).toBe(0);
    expect(crossingMinutes(curve, 0.35)).toBeCloseTo(1);
    expect(crossingMinutes(curve, 0.5)).toBeCloseTo(2 + (2 * 0.1) / 0.15);
    expect(crossingMinutes(curve, 0.6)).toBeNull();
  });
  it('averages seeds point by point, with the standard error over seeds', () => {
    const other = curve.map((p, i) => ({ ...p, minutes: p.minutes + (i === 2 ? 0.2 : 0), success: p.success + 0.1 }));
    const { curve: m, se } = meanCurve([curve, other]);
    expect(m.map((p) => p.success)).toEqual([0.35, 0.45, 0.6].map((x) => expect.closeTo(x, 12)));
    expect(m[2]!.minutes).toBeCloseTo(4.1);
    expect(m[0]!.episodes).toBe(200);
    // Two seeds 0.1 apart: sd 0.1/√2, se = sd/√2 = 0.05.
    se.forEach((x) => expect(x).toBeCloseTo(0.05));
    expect(meanCurve([curve]).se).toEqual([0, 0, 0]);
    expect(() => meanCurve([curve, curve.slice(1)])).toThrow(/not one grid/);
    expect(() => meanCurve([])).toThrow(/no curves/);
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
