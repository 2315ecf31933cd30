// `agentjet task new DIR --describe "…"` (vibe training: an LLM writes the task, `task check`
// judges it, failures go back, up to --rounds) and `agentjet task check DIR` (the verdict as JSON on
// stdout — every failure with file:line or the failing episode's transcript — progress on stderr).
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { draftTask } from '../node/task/task-draft';
import { checkTask } from '../node/task/task-check';
import { defaultDataDir } from '../node/campaign/campaign-files';
import type { TaskVerdict } from '../shared/task-draft';
import { parseFlags } from './flags';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');

import { taskHelp } from './task-help';

export { taskHelp };

const num = z.coerce.number();
const NewFlags = z
  .object({
    describe: z.string().min(10),
    endpoint: z.string().url().optional(),
    model: z.string().optional(),
    apiKey: z.string().optional(),
    rounds: num.int().min(1).max(10).default(3),
    smoke: num.int().min(0).max(20).default(3),
  })
  .strict();
const CheckFlags = z
  .object({
    smoke: num.int().min(0).max(20).default(3),
    worker: z.string().url().optional(),
    adminToken: z.string().optional(),
    joinToken: z.string().optional(),
    json: z.enum(['true', 'false']).optional(),
  })
  .strict();

const err = (line: string): void => void process.stderr.write(`${line}\n`);

export function formatVerdict(v: TaskVerdict): string {
  const lines = [`task check ${v.dir}: ${v.ok ? 'PASSED' : 'FAILED'}`];
  for (const c of v.checks)
    lines.push(
      `  ${c.skipped ? 'skip' : c.ok ? 'ok  ' : 'FAIL'} ` +
        `${c.name}${c.skipped && c.detail ? ` (${c.detail})` : ''}${c.ms ? ` · ${c.ms} ms` : ''}`,
    );
  for (const f of v.failures)
    lines.push(
      `  [${f.check}] ` +
        `${f.file ? `${f.file}${f.line ? `:${f.line}` : ''}: ` : ''}${f.message.split('\n').join('\n      ')}`,
    );
  return lines.join('\n');
}

export async function runTaskCommand(argv: readonly string[]): Promise<number> {
  const [sub, dir, ...rest] = argv;
  if (!dir || dir.startsWith('--')) throw new Error(`name the task folder\n\n${taskHelp}`);
  const cacheDir = join(defaultDataDir(), 'cache', 'clients');
  if (sub === 'check') {
    const f = CheckFlags.parse(parseFlags(rest));
    if (f.worker && (!f.adminToken || !f.joinToken)) throw new Error('--worker needs --admin-token and --join-token');
    const verdict = await checkTask(resolve(dir), {
      repoRoot: REPO_ROOT,
      cacheDir,
      smokeEpisodes: f.smoke,
      log: err,
      ...(f.worker ? { worker: { url: f.worker, adminToken: f.adminToken!, joinToken: f.joinToken! } } : {}),
    });
    err(formatVerdict(verdict));
    console.log(JSON.stringify(verdict, null, 2));
    return verdict.ok ? 0 : 1;
  }
  if (sub === 'new') {
    const f = NewFlags.parse(parseFlags(rest));
    const endpoint = f.endpoint ?? process.env['AGENTJET_LLM_ENDPOINT'];
    const model = f.model ?? process.env['AGENTJET_LLM_MODEL'];
    if (!endpoint || !model)
      throw new Error('give the LLM: --endpoint URL --model M (or AGENTJET_LLM_ENDPOINT and AGENTJET_LLM_MODEL)');
    const result = await draftTask(
      {
        dir: resolve(dir),
        description: f.describe,
        llm: { endpoint, model, apiKey: f.apiKey ?? process.env['AGENTJET_LLM_API_KEY'] ?? '' },
        rounds: f.rounds,
        smokeEpisodes: f.smoke,
      },
      {
        repoRoot: REPO_ROOT,
        cacheDir,
        log: err,
        onRound: (r) => {
          console.log(
            `── round ${r.round}: ` +
              `${r.verdict.ok ? 'check passed' : `check failed (${r.verdict.failures.length})`} · ${r.tokens} ` +
              'tokens',
          );
          if (r.diff) console.log(r.diff);
          if (!r.verdict.ok) console.log(formatVerdict(r.verdict));
        },
      },
    );
    console.log(
      result.ok
        ? `task ready in ${result.dir}: review client.ts and reward.ts, then train it (workbench: Connect → ` +
            `Local → folder ${result.dir}; or a campaign with base.task: ${result.dir})`
        : `no passing task after ${result.rounds.length} round(s): ${result.note ?? ''}; the last files are in ` +
            `${result.dir}`,
    );
    return result.ok ? 0 : 1;
  }
  throw new Error(`unknown task command ${JSON.stringify(sub ?? '')}\n\n${taskHelp}`);
}
