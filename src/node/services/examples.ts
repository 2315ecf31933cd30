// The bundled example tasks the workbench offers, and how a run's `example` (a name, or a folder
// holding client.ts and optionally reward.ts) becomes a code workspace.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { TaskKey } from '../tasks';
import type { ExampleInfo } from '../../shared/workbench-api';
import { WorkbenchError } from '../../shared/workbench-api';
import type { WorkspaceSpec } from './code-workspace';

interface BundledExample {
  name: string;
  description: string;
  /** The client the workbench runs (the `openai` package one). */
  client: string;
  task: TaskKey;
}

export const BUNDLED_EXAMPLES: readonly BundledExample[] = [
  {
    name: 'calculator-agent',
    description: 'Arithmetic word problems solved with a calc tool; reward 1 for a correct "#### answer" line.',
    client: 'client-openai.ts',
    task: 'calc',
  },
  {
    name: 'calculator-rm',
    description:
      'The calculator task rewarded by a learned reward model (label episodes, train, deploy) combined with an answer-format rule.',
    client: 'client.ts',
    task: 'calc',
  },
  {
    name: 'guess-number',
    description: 'Find a secret number in 1..100 from higher/lower hints; reward 1 when found within 8 guesses.',
    client: 'client-openai.ts',
    task: 'guess',
  },
];

/** The example's TypeScript sources (no tests), its client first. */
function exampleFiles(dir: string, client: string): string[] {
  const names = existsSync(dir)
    ? readdirSync(dir)
        .filter((n) => n.endsWith('.ts') && !n.endsWith('.test.ts'))
        .sort()
    : [];
  return [client, ...names.filter((n) => n !== client)];
}

export function listExamples(examplesDir: string): ExampleInfo[] {
  return BUNDLED_EXAMPLES.map((e) => ({
    name: e.name,
    description: e.description,
    files: exampleFiles(join(examplesDir, e.name), e.client),
  }));
}

export interface ResolvedExample {
  /** What the run records: the example name or the folder. */
  label: string;
  bundled: BundledExample | null;
  workspace: WorkspaceSpec;
}

/** A bundled example's name or a client folder → where its code is; a `bad_example` error otherwise. */
export function resolveExample(
  example: string,
  o: { examplesDir: string; repoRoot: string; runDir: string },
): ResolvedExample {
  const bundled = BUNDLED_EXAMPLES.find((e) => e.name === example);
  if (bundled) {
    const dir = join(o.examplesDir, bundled.name);
    return {
      label: bundled.name,
      bundled,
      workspace: {
        root: o.repoRoot,
        entry: join(dir, bundled.client),
        editableDir: dir,
        overlayDir: join(o.runDir, 'code', 'overlay'),
      },
    };
  }
  if (!isAbsolute(example))
    throw new WorkbenchError(
      'bad_example',
      `unknown example ${JSON.stringify(example)}: name one of ` +
        `${BUNDLED_EXAMPLES.map((e) => e.name).join(', ')}, or give the absolute path of a folder holding client.ts`,
    );
  const dir = resolve(example);
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new WorkbenchError('bad_example', `${dir}: no such folder`);
  const entry = join(dir, 'client.ts');
  if (!existsSync(entry)) throw new WorkbenchError('bad_example', `${dir} holds no client.ts`);
  return { label: dir, bundled: null, workspace: { root: dir, entry, editableDir: dir, overlayDir: null } };
}
