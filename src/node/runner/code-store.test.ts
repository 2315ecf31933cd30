// Tests for the code store: versions saved once, listed oldest first, read back with their sources.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CodeStore } from './code-store';
import { hashInputs } from './compile';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentjet-code-store-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const version = (text: string) => {
  const inputs = [
    { path: 'client.ts', contents: `import './lib/x';\nconsole.log(${JSON.stringify(text)});\n` },
    { path: '../shared/lib.ts', contents: 'export {};\n' },
  ];
  return { codeVersion: hashInputs(inputs), entry: 'client.ts', rootDir: '/p', inputs };
};

describe('CodeStore', () => {
  it('saves each version once and lists them oldest first with their files', async () => {
    const store = new CodeStore(dir);
    const a = version('a');
    const b = version('b');
    await store.save(b, 2000);
    await store.save(a, 1000);
    const again = await store.save(a, 3000);
    expect(again.createdAt).toBe(1000);
    const list = await store.list();
    expect(list.map((m) => [m.codeVersion, m.createdAt])).toEqual([
      [a.codeVersion, 1000],
      [b.codeVersion, 2000],
    ]);
    expect(list[0]!.files.map((f) => f.path)).toEqual(['../shared/lib.ts', 'client.ts']);
    const got = await store.get(a.codeVersion);
    expect(got?.files.find((f) => f.path === '../shared/lib.ts')?.contents).toBe('export {};\n'); // kept inside the store
    expect(got?.manifest.entry).toBe('client.ts');
  });

  it('answers null for unknown or malformed versions and ignores incomplete or corrupt folders', async () => {
    const store = new CodeStore(dir);
    expect(await store.get('0123456789ab')).toBeNull();
    expect(await store.get('../../etc')).toBeNull();
    await expect(store.save({ ...version('a'), codeVersion: '../x' })).rejects.toThrow(/not a code version/);
    await writeFile(join(dir, 'notes.txt'), 'x');
    const v = version('c');
    await store.save(v);
    await writeFile(join(dir, v.codeVersion, 'manifest.json'), '{"codeVersion": 1}');
    expect(await store.list()).toEqual([]);
    expect(await new CodeStore(join(dir, 'missing')).list()).toEqual([]);
  });
});
