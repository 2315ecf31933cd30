// Paired task order: clients of the same index play the same tasks in the same order in every framework,
// the Python client (client.py) included.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pairedTaskIndex } from './swarm-loop';

describe('pairedTaskIndex', () => {
  it('walks every task once per cycle, from an offset set by the client index, whatever the framework', () => {
    const seen = new Set(Array.from({ length: 2000 }, (_, n) => pairedTaskIndex('train-openai-0', n, 2000)));
    expect(seen.size).toBe(2000);
    for (let n = 0; n < 50; n++)
      expect(pairedTaskIndex('train-agents-1', n, 2000)).toBe(pairedTaskIndex('train-vercel-1', n, 2000));
    expect(pairedTaskIndex('train-openai-0', 0, 2000)).not.toBe(pairedTaskIndex('train-openai-1', 0, 2000));
    // A count the stride divides still gets a full cycle.
    expect(new Set(Array.from({ length: 1009 }, (_, n) => pairedTaskIndex('c-2', n, 1009))).size).toBe(1009);
  });

  it('is the order the Python client plays', () => {
    const dir = join(import.meta.dirname, 'calculator-agent');
    const code = `import client; print([client.paired_task_index(c, n, k) for c, k in (("train-python-1", 2000), ("x", 1009)) for n in range(20)])`;
    const py: unknown = JSON.parse(
      execFileSync(process.env['PYTHON'] ?? 'python3', ['-c', code], { cwd: dir, encoding: 'utf8' }),
    );
    const ts = [...['train-python-1', 'x'].entries()].flatMap(([i, c]) =>
      Array.from({ length: 20 }, (_, n) => pairedTaskIndex(c, n, i === 0 ? 2000 : 1009)),
    );
    expect(py).toEqual(ts);
  });
});
