// The write batcher against a real SQLite store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../store/store';
import { newRun, stepPoint } from '../store/test-support';
import { WriteBatcher } from './write-batcher';

const dirs: string[] = [];
const temp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'aj-svc-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('WriteBatcher', () => {
  it('commits queued writes together on flush; a failing write is reported and the others kept', () => {
    const store = openStore(join(temp(), 'wb.sqlite'));
    try {
      store.createRun(newRun('r1'));
      const errors: string[] = [];
      const batcher = new WriteBatcher(store, (m) => errors.push(m), 60_000);
      batcher.push((s) => s.putStep('r1', stepPoint(1)));
      batcher.push((s) => s.putStep('no-such-run', stepPoint(1)));
      batcher.push((s) => s.putStep('r1', stepPoint(2)));
      expect(store.metrics('r1').steps).toHaveLength(0);
      batcher.close();
      expect(store.metrics('r1').steps.map((p) => p.step)).toEqual([1, 2]);
      expect(errors).toHaveLength(1);
      batcher.push((s) => s.putStep('r1', stepPoint(3)));
      batcher.flush();
      expect(store.metrics('r1').steps).toHaveLength(2); // closed: nothing more is written
    } finally {
      store.close();
    }
  });

  it('flushes on its timer', async () => {
    const store = openStore(join(temp(), 'wb.sqlite'));
    try {
      store.createRun(newRun('r1'));
      const batcher = new WriteBatcher(store, () => undefined, 20);
      batcher.push((s) => s.putStep('r1', stepPoint(1)));
      await new Promise((r) => setTimeout(r, 120));
      expect(store.metrics('r1').steps).toHaveLength(1);
      batcher.close();
    } finally {
      store.close();
    }
  });
});
