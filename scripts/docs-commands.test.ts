// Every command the README and docs/ name exists: `npm run <script>` (and `npm test` / `npm start`) in
// package.json's scripts, `agentjet <command> [<sub-command>]` in the CLI's command table and its help.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { COMMANDS } from '../src/cli/commands';
import { REPO_ROOT } from './gen-reference';

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdownFiles(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
  );
}

const PAGES = [
  join(REPO_ROOT, 'README.md'),
  join(REPO_ROOT, 'bench', 'RESULTS.md'),
  ...markdownFiles(join(REPO_ROOT, 'docs')),
];

const scripts = Object.keys(
  z
    .object({ scripts: z.record(z.string(), z.string()) })
    .parse(JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'))).scripts,
);

/** The sub-commands a command's help names (`agentjet campaign run …` → run), if it has any. */
const subCommands = (name: string, help: string): Set<string> =>
  new Set([...help.matchAll(new RegExp(`agentjet ${name} ([a-z]+)`, 'g'))].map((m) => m[1]!));

/** Every `npm …` and `agentjet …` a page names that does not exist, as `page: command`. */
function unknownCommands(page: string, text: string): string[] {
  const bad: string[] = [];
  for (const m of text.matchAll(/\bnpm (?:run ([\w:-]+)|(test|start)\b)/g)) {
    const script = m[1] ?? m[2]!;
    if (!scripts.includes(script)) bad.push(`${page}: npm ${m[1] ? 'run ' : ''}${script}`);
  }
  for (const m of text.matchAll(/\bagentjet ([a-z][a-z-]*)(?: ([a-z]+))?/g)) {
    const [, name, sub] = m;
    if (name === 'help') continue;
    const command = COMMANDS[name!];
    if (!command) {
      bad.push(`${page}: agentjet ${name}`);
      continue;
    }
    const subs = subCommands(name!, command.help);
    if (sub !== undefined && subs.size > 0 && !subs.has(sub)) bad.push(`${page}: agentjet ${name} ${sub}`);
  }
  return bad;
}

describe('commands named in the README and docs/', () => {
  it('all exist (package.json scripts, agentjet commands and sub-commands)', () => {
    const bad = PAGES.flatMap((p) => unknownCommands(p.slice(REPO_ROOT.length + 1), readFileSync(p, 'utf8')));
    expect(bad).toEqual([]);
  });

  it('catches a command that does not exist', () => {
    expect(unknownCommands('x.md', 'run `npm run nope` then `agentjet fly` and `agentjet campaign fly`')).toEqual([
      'x.md: npm run nope',
      'x.md: agentjet fly',
      'x.md: agentjet campaign fly',
    ]);
    expect(
      unknownCommands('x.md', '`npm test`, `npm run docs`, `agentjet campaign status`, `agentjet train x`'),
    ).toEqual([]);
  });
});
