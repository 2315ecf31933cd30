// The example swarm clients `agentjet train` runs compile into runner bundles (esbuild), importing
// the SDK from the repo; each client kind has its file.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileClient } from './runner/index';
import { CLIENT_KINDS, clientEntry, EXAMPLES_DIR } from './train-clients';

const cacheDir = mkdtempSync(join(tmpdir(), 'aj-examples-'));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));
const exampleDir = join(EXAMPLES_DIR, 'calculator-agent');

describe('calculator-agent clients', () => {
  it('has a client file for every kind', () => {
    for (const kind of CLIENT_KINDS) expect(existsSync(clientEntry(exampleDir, kind))).toBe(true);
  });

  it.each(['openai', 'fetch'] as const)('the %s client compiles into a bundle', async (kind) => {
    const r = await compileClient({ entry: clientEntry(exampleDir, kind) }, { cacheDir });
    expect(r.ok ? [] : r.errors).toEqual([]);
  });
});
