// `agentjet campaign run FILE` runs (or resumes) a campaign with terminal progress per trial and a
// summary table; `agentjet campaign status [FILE|NAME|DIR]` shows one campaign's trials, or every
// campaign in the data folder. Data: `<data>/workbench.sqlite` (the workbench's store) and
// `<data>/campaigns/<name>/` (study, trials, reports).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { CampaignSpecSchema } from '../shared/campaign/spec';
import { createAgentHooks } from '../node/campaign/agent/agent-hooks';
import { defaultDataDir, loadCampaignFile, type LoadedCampaign } from '../node/campaign/campaign-files';
import { loadRunFile } from '../node/campaign/study-files';
import type { StudyResult } from '../node/campaign/study-runner';
import { runStudyFile } from './study';
import { CampaignRunner, type CampaignResult } from '../node/campaign/campaign-runner';
import { CampaignStore } from '../node/campaign/campaign-store';
import { campaignsTable, printRunnerEvents, trialsTable, type CampaignIo } from './campaign-report';
import { parseFlags } from './flags';
import { whileStoppable } from './signals';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');

import { campaignHelp } from './campaign-help';

export { campaignHelp };

const Flags = z
  .object({
    dataDir: z.string().optional(),
    scale: z.coerce.number().positive().finite().optional(),
    seeds: z.coerce.number().int().min(1).max(100).optional(),
  })
  .strict();

const defaultIo = (): CampaignIo => ({
  out: (line) => console.log(line),
  ...(process.stdout.isTTY ? { progress: (line: string) => process.stdout.write(`\r\x1b[2K${line}`) } : {}),
});

export async function runCampaignCommand(
  argv: readonly string[],
  io: CampaignIo = defaultIo(),
): Promise<CampaignResult | StudyResult | null> {
  const [sub, ...rest] = argv;
  const target = rest[0] && !rest[0].startsWith('--') ? rest[0] : undefined;
  const flags = Flags.parse(parseFlags(target ? rest.slice(1) : rest));
  const dataDir = resolve(flags.dataDir ?? defaultDataDir());
  if (sub === 'run') {
    if (!target) throw new Error(`name the campaign file\n\n${campaignHelp}`);
    const loaded = loadRunFile(target, {
      ...(flags.scale !== undefined ? { scale: flags.scale } : {}),
      ...(flags.seeds !== undefined ? { seeds: flags.seeds } : {}),
    });
    if (loaded.kind === 'study') return runStudyFile(loaded, dataDir, REPO_ROOT, io);
    return runFile(loaded, dataDir, io);
  }
  if (sub === 'status') {
    status(target, dataDir, io);
    return null;
  }
  throw new Error(`unknown campaign command ${JSON.stringify(sub ?? '')}\n\n${campaignHelp}`);
}

async function runFile(loaded: LoadedCampaign, dataDir: string, io: CampaignIo): Promise<CampaignResult> {
  const store = CampaignStore.open(join(dataDir, 'workbench.sqlite'));
  const runner = new CampaignRunner({
    spec: loaded.spec,
    baseDir: loaded.baseDir,
    dataDir,
    store,
    repoRoot: REPO_ROOT,
    examplesDir: join(REPO_ROOT, 'resources', 'examples'),
    ...(loaded.spec.agent
      ? { hooks: createAgentHooks(loaded.spec.agent, store, (line) => io.out(`  agent: ${line}`)) }
      : {}),
    onEvent: printRunnerEvents(io, loaded.spec),
  });
  const onSignal = (): void => {
    io.out('stopping: the running trials are interrupted and re-run when the campaign is resumed');
    runner.stop('stopped by a signal');
  };
  try {
    const result = await whileStoppable(onSignal, () => runner.run());
    io.progress?.('');
    io.out(`campaign ${result.campaignId} ${result.state} · wall ${(result.wallS / 60).toFixed(1)} min`);
    io.out(
      trialsTable(
        result.trials.filter((t) => t.state !== 'interrupted'),
        loaded.spec,
      ),
    );
    io.out(`report: ${result.paths.reportHtml} (and report.md)`);
    return result;
  } finally {
    store.close();
  }
}

/** Which campaign a status target names: a campaign file, a campaign folder, or a name. */
function campaignOf(target: string, dataDir: string): { name: string; dataDir: string } {
  const path = resolve(target);
  if (existsSync(path) && statSync(path).isDirectory()) {
    const spec = z
      .object({ name: z.string() })
      .loose()
      .parse(JSON.parse(readFileSync(join(path, 'campaign.json'), 'utf8')));
    return { name: spec.name, dataDir: basename(dirname(path)) === 'campaigns' ? dirname(dirname(path)) : dataDir };
  }
  if (existsSync(path)) return { name: loadCampaignFile(path).spec.name, dataDir };
  return { name: target, dataDir };
}

function status(target: string | undefined, dataDir: string, io: CampaignIo): void {
  const where = target ? campaignOf(target, dataDir) : { name: null, dataDir };
  const store = CampaignStore.open(join(where.dataDir, 'workbench.sqlite'));
  try {
    if (!where.name) {
      io.out(campaignsTable(store.list(Date.now())));
      return;
    }
    const s = store.summary(where.name, Date.now());
    const spec = CampaignSpecSchema.parse(store.spec(where.name));
    io.out(
      `campaign ${s.name}: ${s.state}${s.live ? ' (a runner is live)' : ''} · ${s.trials}/${s.budgetTrials} ` +
        `trials (${s.completed} completed, ${s.pruned} pruned, ${s.failed} failed, ${s.running} running) · wall ` +
        `${(s.wallS / 60).toFixed(1)} min${s.note ? ` · ${s.note}` : ''}`,
    );
    if (spec.question) io.out(`  ${spec.question}`);
    io.out(
      trialsTable(
        store.trials(where.name).filter((t) => t.state !== 'interrupted'),
        spec,
      ),
    );
    const importance = store.extras(where.name).importance;
    if (importance)
      io.out(
        `importance: ${Object.entries(importance)
          .sort((a, b) => b[1] - a[1])
          .map(([k, v]) => `${k} ${v.toFixed(2)}`)
          .join(', ')}`,
      );
    io.out(`folder: ${s.dir}`);
  } finally {
    store.close();
  }
}
