// How the TypeScript benchmarks run the Python ones (bench/python/agentjet_bench): the engine's
// interpreter with that folder on PYTHONPATH (the package puts gpu-worker/engine on the path itself).
import { delimiter, resolve } from 'node:path';
import { findPython } from '../gpu-worker/src/engine/find-python';

export const BENCH_PYTHON_DIR = resolve(import.meta.dirname, 'python');

/** The interpreter, the arguments of `python -m agentjet_bench.<module> …`, and the environment to run it in. */
export function benchModule(
  module: string,
  args: readonly string[],
): { python: string; args: string[]; env: NodeJS.ProcessEnv } {
  const path = [BENCH_PYTHON_DIR, process.env.PYTHONPATH].filter((p) => p !== undefined && p !== '').join(delimiter);
  return {
    python: findPython(),
    args: ['-m', `agentjet_bench.${module}`, ...args],
    env: { ...process.env, PYTHONPATH: path },
  };
}
