// Test helper: reads a folder of TensorBoard event files back with the `tensorboard` Python package
// (the engine's virtualenv has it) — EventAccumulator, as TensorBoard itself loads them — and
// returns every scalar tag's (step, value) points.
import { spawnSync } from 'node:child_process';
import { z } from 'zod';
import { findPython } from '../engine/find-python';

const SCRIPT = `
import json, sys
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
acc = EventAccumulator(sys.argv[1], size_guidance={"scalars": 0})
acc.Reload()
print(json.dumps({tag: [[e.step, e.value] for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}))
`;

const ScalarsSchema = z.record(z.string(), z.array(z.tuple([z.number(), z.number()])));

export function readTensorBoardScalars(dir: string): Record<string, [number, number][]> {
  const res = spawnSync(findPython(), ['-c', SCRIPT, dir], { encoding: 'utf8', timeout: 60_000 });
  if (res.status !== 0) throw new Error(`reading ${dir} with tensorboard failed (${res.status}): ${res.stderr}`);
  return ScalarsSchema.parse(JSON.parse(res.stdout));
}
