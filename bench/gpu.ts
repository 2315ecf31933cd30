// Benchmark `gpu`: runs the engine's GPU benchmark (`python -m agentjet_bench.gpu`, bench/python, which
// needs only torch, transformers, peft and tokenizers, so it also runs on a GPU box without Node)
// with the engine's interpreter, passing the options through; its lines are printed as they come
// and its last line is the summary. Without CUDA it says so and fails.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { benchModule } from './python-bench';

export async function benchGpu(args: string[]): Promise<Record<string, unknown>> {
  const run = benchModule('gpu', args);
  const child = spawn(run.python, run.args, {
    env: run.env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let last = '';
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (last) console.log(last);
    last = line;
  });
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
  if (code !== 0) throw new Error(`bench gpu failed (exit ${code}): ${last || 'no output'}`);
  return z.record(z.string(), z.unknown()).parse(JSON.parse(last));
}
