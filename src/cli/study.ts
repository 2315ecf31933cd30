// `agentjet campaign run STUDY.yaml` for a study file (`kind: study`, docs/studies.md): its arms ×
// seeds as trials with progress per trial, then the per-arm table and the comparisons with verdicts.
import { join } from 'node:path';
import { formatter } from '../shared/campaign/study-report';
import { CampaignStore } from '../node/campaign/campaign-store';
import type { LoadedStudy } from '../node/campaign/study-files';
import { checkRunnable, StudyRunner, type StudyResult } from '../node/campaign/study-runner';
import { printRunnerEvents, type CampaignIo } from './campaign-report';
import { whileStoppable } from './signals';
import { studyCampaign } from '../shared/campaign/study-spec';

export async function runStudyFile(
  loaded: LoadedStudy,
  dataDir: string,
  repoRoot: string,
  io: CampaignIo,
): Promise<StudyResult> {
  const { spec } = loaded;
  checkRunnable(spec);
  const store = CampaignStore.open(join(dataDir, 'workbench.sqlite'));
  const asCampaign = studyCampaign(spec);
  const runner = new StudyRunner({
    spec,
    baseDir: loaded.baseDir,
    dataDir,
    store,
    repoRoot,
    examplesDir: join(repoRoot, 'resources', 'examples'),
    onEvent: printRunnerEvents(io, asCampaign),
  });
  const onSignal = (): void => {
    io.out('stopping: the running trial is interrupted and runs again when the study is resumed');
    runner.stop('stopped by a signal');
  };
  try {
    io.out(
      `study ${spec.name}: ${Object.keys(spec.arms).length} arms × ${spec.seeds} seeds · ${spec.budget.minutes} ` +
        'min per trial',
    );
    const result = await whileStoppable(onSignal, () => runner.run());
    io.progress?.('');
    const f = formatter(spec);
    io.out(`study ${result.campaignId} ${result.state} · wall ${(result.wallS / 60).toFixed(1)} min`);
    for (const a of result.analysis.arms)
      io.out(
        `  ${a.arm}: ` +
          `${a.spread ? `${f(a.spread.mean)}${a.spread.se === null ? '' : ` ± ${f(a.spread.se)}`}` : '—'} ` +
          `(${a.values.length} seed${a.values.length === 1 ? '' : 's'})`,
      );
    for (const c of result.analysis.comparisons) {
      const d = c.difference;
      io.out(
        `  ${c.a} − ${c.b}: ` +
          `${d ? `${f(d.diff)}${d.se === null ? '' : ` ± ${f(d.se)}`} · ${d.verdict.text}` : 'no values'}`,
      );
      io.out(`    ${c.power.text}`);
    }
    io.out(`report: ${result.paths.reportHtml} (and report.md)`);
    return result;
  } finally {
    store.close();
  }
}
