// An arm folder that already holds a worker run is refused before any arm runs (not after the first arm's budget).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { armWorkerDir, refuseOccupiedArm } from './distill-arm';

describe('refuseOccupiedArm', () => {
  it('passes an empty or missing arm folder and refuses one whose worker holds a run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'distill-arm-'));
    expect(() => refuseOccupiedArm(join(dir, 'missing'), 'rl')).not.toThrow();
    mkdirSync(armWorkerDir(dir), { recursive: true });
    expect(() => refuseOccupiedArm(dir, 'distill')).not.toThrow();
    writeFileSync(join(armWorkerDir(dir), 'state.json'), '{}');
    expect(() => refuseOccupiedArm(dir, 'distill')).toThrow(/\[distill\] .* already holds a worker run/);
  });
});
