// The workbench's side of campaigns (the WorkbenchApi's campaign methods): reads from the store,
// starts a campaign (or a study, docs/studies.md) as an `agentjet campaign run` child process (its
// output in the campaign folder's runner.log; the parent watchdog stops it, resumably, if the
// workbench dies), and passes stop / steering commands and proposal approvals to whichever runner
// holds the campaign — this workbench's child or a runner in a terminal — through the store.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { computeSeconds } from '../../shared/campaign/report';
import { WorkbenchError, type WorkbenchParsedParams as P, type WorkbenchResult as R } from '../../shared/workbench-api';
import { PARENT_WATCHDOG } from '../runner/client-process';
import { nodeCommand } from '../services/worker-process';
import { campaignPaths, CampaignFileError } from './campaign-files';
import { loadRunFile } from './study-files';
import { CampaignStore } from './campaign-store';

export interface CampaignServiceOptions {
  dataDir: string;
  repoRoot: string;
  log: (line: string) => void;
}

export class CampaignService {
  private readonly store: CampaignStore;
  private readonly children = new Map<string, ChildProcess>();

  constructor(private readonly o: CampaignServiceOptions) {
    this.store = CampaignStore.open(join(o.dataDir, 'workbench.sqlite'));
  }

  async campaigns(): Promise<R<'campaigns'>> {
    return { campaigns: this.store.list(Date.now()) };
  }

  async campaign(p: P<'campaign'>): Promise<R<'campaign'>> {
    const now = Date.now();
    const summary = this.store.summary(p.campaignId, now);
    const trials = this.store.trials(p.campaignId);
    const extras = this.store.extras(p.campaignId);
    const paths = campaignPaths(this.o.dataDir, p.campaignId);
    return {
      summary,
      spec: this.store.spec(p.campaignId),
      trials,
      curves: this.store.curves(p.campaignId),
      importance: extras.importance,
      analysis: extras.analysis,
      agent: extras.agent,
      decisions: this.store.decisions(p.campaignId),
      computeS: computeSeconds(trials, now),
      reports: {
        html: existsSync(paths.reportHtml) ? paths.reportHtml : null,
        markdown: existsSync(paths.reportMd) ? paths.reportMd : null,
      },
    };
  }

  async campaignStart(p: P<'campaignStart'>): Promise<R<'campaignStart'>> {
    let name: string;
    try {
      name = loadRunFile(p.file).spec.name;
    } catch (err) {
      throw new WorkbenchError(
        'bad_campaign',
        err instanceof CampaignFileError ? err.message : err instanceof Error ? err.message : String(err),
      );
    }
    if (this.store.has(name) && this.store.liveRunner(name, Date.now()) !== null)
      throw new WorkbenchError('already_running', `campaign ${name} is already running`);
    const paths = campaignPaths(this.o.dataDir, name);
    mkdirSync(paths.dir, { recursive: true });
    const { execPath, env } = nodeCommand();
    const child = spawn(
      execPath,
      [
        '--import',
        PARENT_WATCHDOG,
        join(this.o.repoRoot, 'bin', 'agentjet.mjs'),
        'campaign',
        'run',
        p.file,
        '--data-dir',
        this.o.dataDir,
      ],
      {
        cwd: this.o.repoRoot,
        env: { ...env, AGENTJET_PARENT_PID: String(process.pid), FORCE_COLOR: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const log = createWriteStream(join(paths.dir, 'runner.log'), { flags: 'a' });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    this.children.set(name, child);
    child.once('exit', (code, signal) => {
      this.children.delete(name);
      log.end(`[workbench] the runner exited (${signal ?? `code ${code}`})\n`);
      this.o.log(`campaign ${name}: the runner exited (${signal ?? `code ${code}`})`);
    });
    if (child.pid === undefined)
      throw new WorkbenchError('start_failed', `could not start the campaign runner for ${name}`);
    return { campaignId: name, pid: child.pid };
  }

  async campaignCommand(p: P<'campaignCommand'>): Promise<R<'campaignCommand'>> {
    if (this.store.liveRunner(p.campaignId, Date.now()) === null)
      throw new WorkbenchError('not_running', `campaign ${p.campaignId} has no live runner; start it first`);
    this.store.addCommand(p.campaignId, p.command, Date.now());
    return { ok: true };
  }

  async campaignDecision(p: P<'campaignDecision'>): Promise<R<'campaignDecision'>> {
    const ok = this.store.setDecisionStatus(
      p.campaignId,
      p.decisionId,
      p.approve ? 'approved' : 'rejected',
      ['pending'],
      { decidedAt: Date.now() },
    );
    if (!ok) throw new WorkbenchError('not_pending', `decision ${p.decisionId} is not a proposal waiting for approval`);
    return { ok: true };
  }

  /** Stops this workbench's runners (SIGTERM: their running trials re-run on resume). */
  async dispose(): Promise<void> {
    await Promise.all(
      [...this.children.values()].map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            const timer = setTimeout(() => c.kill('SIGKILL'), 30_000);
            c.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            c.kill('SIGTERM');
          }),
      ),
    );
    this.store.close();
  }
}
