// The code workspace: paths from the root, edits of a bundled example only in the overlay, a user folder in place.
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CodeWorkspace } from './code-workspace';

const dirs: string[] = [];
const temp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'aj-svc-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('CodeWorkspace', () => {
  it('names files from the root, refuses paths leaving it, edits a bundled example only in the overlay', async () => {
    const root = temp();
    const ex = join(root, 'examples', 'calc');
    await mkdir(ex, { recursive: true });
    writeFileSync(join(ex, 'client.ts'), 'import "./reward";\n');
    writeFileSync(join(ex, 'reward.ts'), 'export const r = 1;\n');
    writeFileSync(join(root, 'shared.ts'), 'export {};\n');
    const overlayDir = join(temp(), 'overlay');
    const ws = await CodeWorkspace.open({ root, entry: join(ex, 'client.ts'), editableDir: ex, overlayDir });
    expect(ws.entryPath).toBe('examples/calc/client.ts');
    expect(ws.rel(join(root, 'shared.ts'))).toBe('shared.ts');
    expect(ws.rel(join(root, '..', 'elsewhere.ts'))).toBeNull();
    expect(() => ws.abs('../escape.ts')).toThrow(expect.objectContaining({ code: 'bad_path' }));
    expect(ws.editable(join(ex, 'reward.ts'))).toBe(true);
    expect(ws.editable(join(root, 'shared.ts'))).toBe(false);
    await expect(ws.save([{ path: 'shared.ts', content: 'x' }])).rejects.toMatchObject({ code: 'not_editable' });
    expect(ws.clientCode()).toEqual({ entry: join(ex, 'client.ts') });
    await ws.save([{ path: 'examples/calc/reward.ts', content: 'export const r = 2;\n' }]);
    expect(readFileSync(join(ex, 'reward.ts'), 'utf8')).toBe('export const r = 1;\n');
    expect(await ws.read(join(ex, 'reward.ts'))).toBe('export const r = 2;\n');
    expect(ws.clientCode()).toEqual({
      entry: join(ex, 'client.ts'),
      overlay: { [join(ex, 'reward.ts')]: 'export const r = 2;\n' },
    });
    // Reopened on the same run folder, the edit is still there.
    const again = await CodeWorkspace.open({ root, entry: join(ex, 'client.ts'), editableDir: ex, overlayDir });
    expect(await again.read(join(ex, 'reward.ts'))).toBe('export const r = 2;\n');
  });

  it('writes a user folder in place', async () => {
    const dir = temp();
    writeFileSync(join(dir, 'client.ts'), 'console.log(1);\n');
    const ws = await CodeWorkspace.open({
      root: dir,
      entry: join(dir, 'client.ts'),
      editableDir: dir,
      overlayDir: null,
    });
    await ws.save([{ path: 'client.ts', content: 'console.log(2);\n' }]);
    expect(readFileSync(join(dir, 'client.ts'), 'utf8')).toBe('console.log(2);\n');
    expect(ws.clientCode()).toEqual({ entry: join(dir, 'client.ts') });
  });

  it('never follows a symlink out of a user folder when saving', async () => {
    const dir = temp();
    const outside = temp();
    writeFileSync(join(dir, 'client.ts'), 'console.log(1);\n');
    writeFileSync(join(outside, 'victim.ts'), 'precious\n');
    symlinkSync(join(outside, 'victim.ts'), join(dir, 'evil.ts'));
    symlinkSync(outside, join(dir, 'lib'));
    symlinkSync(join(outside, 'nothing-yet.ts'), join(dir, 'dangling.ts'));
    symlinkSync(join(dir, 'client.ts'), join(dir, 'alias.ts'));
    const ws = await CodeWorkspace.open({
      root: dir,
      entry: join(dir, 'client.ts'),
      editableDir: dir,
      overlayDir: null,
    });
    await expect(ws.save([{ path: 'evil.ts', content: 'pwned' }])).rejects.toMatchObject({
      code: 'not_editable',
      message: expect.stringMatching(/outside the client folder/),
    });
    await expect(ws.save([{ path: 'lib/new.ts', content: 'pwned' }])).rejects.toMatchObject({ code: 'not_editable' });
    await expect(ws.save([{ path: 'lib/deeper/new.ts', content: 'pwned' }])).rejects.toMatchObject({
      code: 'not_editable',
    });
    await expect(ws.save([{ path: 'dangling.ts', content: 'pwned' }])).rejects.toMatchObject({ code: 'not_editable' });
    // A refused file in a batch writes none of the batch.
    await expect(
      ws.save([
        { path: 'client.ts', content: 'changed' },
        { path: 'evil.ts', content: 'pwned' },
      ]),
    ).rejects.toMatchObject({ code: 'not_editable' });
    expect(readFileSync(join(outside, 'victim.ts'), 'utf8')).toBe('precious\n');
    expect(readFileSync(join(dir, 'client.ts'), 'utf8')).toBe('console.log(1);\n');
    expect(
      existsSync(join(outside, 'new.ts')) ||
        existsSync(join(outside, 'deeper')) ||
        existsSync(join(outside, 'nothing-yet.ts')),
    ).toBe(false);
    // A link that stays inside the folder is written through to its real file; new subfolders are fine.
    await ws.save([
      { path: 'alias.ts', content: 'console.log(3);\n' },
      { path: 'sub/dir/x.ts', content: 'x\n' },
    ]);
    expect(readFileSync(join(dir, 'client.ts'), 'utf8')).toBe('console.log(3);\n');
    expect(readFileSync(join(dir, 'sub', 'dir', 'x.ts'), 'utf8')).toBe('x\n');
  });
});
