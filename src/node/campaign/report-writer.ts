// Writes a campaign's report from the store: `report.md` (charts as SVG files in `report-charts/`)
// and `report.html` (the same charts inline), both in the campaign folder, atomically.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildReport, type Report } from '../../shared/campaign/report';
import { CampaignSpecSchema } from '../../shared/campaign/spec';
import type { CampaignPaths } from './campaign-files';
import type { CampaignStore } from './campaign-store';

function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

export function buildCampaignReport(store: CampaignStore, campaignId: string, now = Date.now()): Report {
  const extras = store.extras(campaignId);
  return buildReport({
    summary: store.summary(campaignId, now),
    spec: CampaignSpecSchema.parse(store.spec(campaignId)),
    trials: store.trials(campaignId),
    curves: store.curves(campaignId),
    importance: extras.importance,
    analysis: extras.analysis,
    decisions: store.decisions(campaignId),
    generatedAt: now,
  });
}

export async function writeReports(
  store: CampaignStore,
  campaignId: string,
  paths: Pick<CampaignPaths, 'dir' | 'reportHtml' | 'reportMd'>,
): Promise<Report> {
  const report = buildCampaignReport(store, campaignId);
  const chartsDir = join(paths.dir, 'report-charts');
  mkdirSync(chartsDir, { recursive: true });
  for (const [name, svg] of Object.entries(report.charts)) writeAtomic(join(chartsDir, name), svg);
  writeAtomic(paths.reportMd, report.markdown);
  writeAtomic(paths.reportHtml, report.html);
  return report;
}
