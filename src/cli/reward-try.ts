// `agentjet reward try`: the edited reward code over a run's recorded episodes (src/node/reward-try),
// printed as one JSON verdict for people, agents and campaigns (docs/inner-loop.md).
import { join } from 'node:path';
import { z } from 'zod';
import { RewardLoadError } from '../node/reward-try/runner';
import { tryReward } from '../node/reward-try/reward-try';
import { openStore } from '../node/store/store';
import { parseFlags } from './flags';
import { resolveDataDir } from './ui';

export const rewardTryHelp = `  agentjet reward try --file F [--run R] [--last N] [--task T] [--code-version V]
                           [--export NAME] [--tasks A.jsonl,B.jsonl] [--timeout-ms MS] [--data-dir D]
                           score a run's last N ended episodes (default: the newest run, 200) with the
                           reward code in F (.ts/.js bundled as the client runs it, or .py) in a child
                           process; prints a JSON verdict: old vs new distribution, changed episodes
                           (largest first), per-episode errors, groups gaining/losing signal`;

const Options = z
  .object({
    file: z.string().min(1),
    run: z.string().min(1).optional(),
    last: z.coerce.number().int().min(1).max(5000).default(200),
    task: z.string().min(1).max(200).optional(),
    codeVersion: z.string().min(1).max(200).optional(),
    export: z
      .string()
      .regex(/^[A-Za-z_$][\w$]*$/, 'a function name')
      .optional(),
    tasks: z.string().min(1).optional(),
    timeoutMs: z.coerce.number().int().min(10).max(60_000).default(2000),
    dataDir: z.string().min(1).optional(),
  })
  .strict();

/** Runs the command; returns the exit code (0: verdict printed, 1: no verdict). */
export async function runRewardTry(args: string[], out: (text: string) => void = console.log): Promise<number> {
  const parsed = Options.safeParse(parseFlags(args));
  if (!parsed.success) throw new Error(`${z.prettifyError(parsed.error)}\n\n${rewardTryHelp}`);
  const o = parsed.data;
  const dir = resolveDataDir(o.dataDir);
  const store = openStore(join(dir, 'workbench.sqlite'));
  try {
    const runId = o.run ?? store.listRuns(null)[0]?.runId;
    if (!runId) throw new Error(`no runs in ${dir}`);
    const verdict = await tryReward({
      store,
      runId,
      file: o.file,
      last: o.last,
      perEpisodeMs: o.timeoutMs,
      cacheDir: join(dir, 'cache', 'clients'),
      nodePaths: [join(process.cwd(), 'node_modules')],
      ...(o.task ? { task: o.task } : {}),
      ...(o.codeVersion ? { codeVersion: o.codeVersion } : {}),
      ...(o.export ? { exportName: o.export } : {}),
      ...(o.tasks ? { taskFiles: o.tasks.split(',') } : {}),
    });
    out(JSON.stringify(verdict, null, 2));
    return 0;
  } catch (err) {
    if (!(err instanceof RewardLoadError)) throw err;
    out(JSON.stringify({ ok: false, loadError: err.message }, null, 2));
    return 1;
  } finally {
    store.close();
  }
}
