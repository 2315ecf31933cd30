// Pre-started client processes (real Node processes): the code runs only after `go`, with the code
// version, folder and argv of a client started directly; the bundle's leading packages are loaded
// once, before it; a slot given a pre-started process that died spawns a fresh one instead.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClientSlot, PARENT_WATCHDOG, type LogLine } from './client-process';
import { prestartMain, PrestartedClient } from './prestart';
import { isAlive, tempProject, waitFor, type TempProject } from './test-support';

let project: TempProject;
const discard: PrestartedClient[] = [];

beforeEach(async () => {
  project = await tempProject({
    // A stand-in for a package: says when it is evaluated.
    'pkg.mjs': `console.log('pkg evaluated');\nexport const n = 1;\n`,
    'bundle.mjs': [
      `import { writeFileSync } from 'node:fs';`,
      `import { n } from './pkg.mjs';`,
      `writeFileSync('ran.txt', 'yes');`,
      `console.log(['bundle', n, process.env.AGENTJET_CODE_VERSION, process.argv[1], process.cwd()].join(' '));`,
      `console.log('connected ' + String(process.connected));`,
    ].join('\n'),
  });
});

afterEach(async () => {
  for (const p of discard.splice(0)) p.discard();
  await project.cleanup();
});

async function prestarted(speculative: string[] = []): Promise<PrestartedClient> {
  const main = await prestartMain(join(project.dir, '.cache'));
  const args = ['--import', PARENT_WATCHDOG, main];
  const p = PrestartedClient.spawn(process.execPath, args, project.dir, process.env, speculative);
  discard.push(p);
  return p;
}

function linesOf(p: PrestartedClient): string[] {
  const lines: string[] = [];
  let rest = '';
  p.child.stdout?.on('data', (d: Buffer) => {
    const parts = (rest + d.toString()).split('\n');
    rest = parts.pop() ?? '';
    lines.push(...parts);
  });
  return lines;
}

describe('PrestartedClient', () => {
  it('runs the bundle only after go, as the client would run (env, argv, cwd), its package loaded once', async () => {
    const p = await prestarted();
    const lines = linesOf(p);
    const bundle = join(project.dir, 'bundle.mjs');
    const sub = await project.write('sub/.keep', '');
    const cwd = join(sub, '..');
    p.prepare({
      env: { AGENTJET_CODE_VERSION: 'abc123' },
      cwd,
      bundle,
      preload: [pathToFileURL(join(project.dir, 'pkg.mjs')).href],
    });
    await waitFor('the package preloaded', () => lines.includes('pkg evaluated'));
    expect(existsSync(join(cwd, 'ran.txt'))).toBe(false); // no client code before go
    expect(p.adopt()).toBe(p.child);
    await waitFor('the bundle to run', () => lines.some((l) => l.startsWith('bundle ')), 10_000);
    expect(lines).toEqual(['pkg evaluated', `bundle 1 abc123 ${bundle} ${cwd}`, 'connected false']);
    expect(existsSync(join(cwd, 'ran.txt'))).toBe(true);
  });

  it('loads the previous bundle packages at once, and takes code that starts with them only', async () => {
    const pkg = pathToFileURL(join(project.dir, 'pkg.mjs')).href;
    const p = await prestarted([pkg]);
    const lines = linesOf(p);
    await waitFor('the speculative package loaded', () => lines.includes('pkg evaluated'));
    const code = { env: {}, cwd: project.dir, bundle: join(project.dir, 'bundle.mjs') };
    expect(p.prepare({ ...code, preload: ['file:///elsewhere/other.mjs', pkg] })).toBe(false); // not its start
    expect(p.prepare({ ...code, preload: [pkg] })).toBe(true);
    expect(p.adopt()).toBe(p.child);
    await waitFor('the bundle to run', () => lines.includes('connected false'), 10_000);
    expect(lines.filter((l) => l === 'pkg evaluated')).toHaveLength(1);
  });

  it('a discarded one (a compile error) is killed; a dead one is not adopted', async () => {
    const p = await prestarted();
    const pid = p.child.pid!;
    await waitFor('spawned', () => isAlive(pid));
    p.discard();
    await waitFor('killed', () => !isAlive(pid));
    expect(p.adopt()).toBeNull();
  });
});

describe('ClientSlot with a pre-started process', () => {
  const cfg = {
    backoff: { initialMs: 50, factor: 2, maxMs: 1000, resetAfterMs: 10_000 },
    restart: 'never' as const,
    logCapacity: 100,
    maxLineLength: 1000,
  };

  async function launch(p: PrestartedClient): Promise<{ slot: ClientSlot; lines: LogLine[]; exited: boolean[] }> {
    const lines: LogLine[] = [];
    const exited: boolean[] = [];
    const slot = new ClientSlot(0, 'c-0', cfg, {
      started: () => undefined,
      exited: () => exited.push(true),
      log: (_, l) => lines.push(l),
    });
    const bundle = join(project.dir, 'bundle.mjs');
    p.prepare({ env: { AGENTJET_CODE_VERSION: 'v2' }, cwd: project.dir, bundle, preload: [] });
    const env = { ...process.env, AGENTJET_CODE_VERSION: 'v2' };
    const spec = { command: process.execPath, args: [bundle], codeVersion: 'v2', cwd: project.dir, env };
    await slot.launch(spec, p);
    return { slot, lines, exited };
  }

  it("adopts a live one: its output and exit are the slot's", async () => {
    const p = await prestarted();
    const { slot, lines, exited } = await launch(p);
    expect(slot.status().pid).toBe(p.child.pid);
    await waitFor('exit', () => exited.length === 1, 10_000);
    expect(lines.filter((l) => l.stream === 'stdout').map((l) => l.line)).toEqual([
      'pkg evaluated',
      `bundle 1 v2 ${join(project.dir, 'bundle.mjs')} ${project.dir}`,
      'connected false',
    ]);
    expect(slot.status()).toMatchObject({ state: 'exited', codeVersion: 'v2', lastExit: { code: 0 } });
  });

  it('spawns a fresh process when the pre-started one died', async () => {
    const p = await prestarted();
    const pid = p.child.pid!;
    process.kill(pid, 'SIGKILL');
    await waitFor('the pre-started process gone', () => !p.alive);
    const { slot, lines, exited } = await launch(p);
    expect(slot.status().pid).not.toBe(pid);
    await waitFor('exit', () => exited.length === 1, 10_000);
    expect(lines.filter((l) => l.stream === 'stdout').map((l) => l.line)).toContain('connected undefined');
  });
});
