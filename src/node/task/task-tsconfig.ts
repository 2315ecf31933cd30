// The tsconfig.json of a task folder: strict TypeScript, `agentjet-workbench/sdk` mapped to the
// SDK's sources and packages to the workbench's node_modules — so esbuild (the client runner)
// and the typechecker (`agentjet task check`) resolve the same imports from anywhere on disk.
import { existsSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const rel = (from: string, to: string): string => {
  const r = relative(from, to).split(sep).join('/');
  return r.startsWith('.') ? r : `./${r}`;
};

export function taskTsconfig(repoRoot: string, taskDir: string): string {
  const modules = join(repoRoot, 'node_modules');
  return `${JSON.stringify(
    {
      compilerOptions: {
        target: 'ES2023',
        module: 'ESNext',
        moduleResolution: 'Bundler',
        lib: ['ES2023'],
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        esModuleInterop: true,
        resolveJsonModule: true,
        isolatedModules: true,
        types: ['node'],
        typeRoots: [rel(taskDir, join(modules, '@types'))],
        paths: {
          'agentjet-workbench/sdk': [rel(taskDir, join(repoRoot, 'src', 'sdk', 'index.ts'))],
          '*': [`${rel(taskDir, modules)}/*`],
        },
      },
      include: ['*.ts'],
    },
    null,
    2,
  )}\n`;
}

/** Writes the task folder's tsconfig.json unless it has one. */
export function ensureTaskTsconfig(repoRoot: string, taskDir: string): string {
  const path = join(taskDir, 'tsconfig.json');
  if (!existsSync(path)) writeFileSync(path, taskTsconfig(repoRoot, taskDir));
  return path;
}
