// The Campaigns panel in a browser: `agentjet ui` with a fresh data folder; a small real campaign
// (built-in model, local workers) is started from the panel, and the panel shows its trials as they
// run and finish, the charts (curves, parallel coordinates, objective vs parameter) and the report.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  byTestId,
  chromiumMissing,
  launchChromium,
  poll,
  screenshot,
  showPanel,
  startUiProcess,
  waitForNumberAttr,
  type UiProcess,
} from './harness';

const missing = chromiumMissing();
if (missing) console.warn(`browser e2e skipped: ${missing}`);

const CAMPAIGN = `name: e2e-campaign
question: Which of two learning rates does better in a few steps?
base:
  task: calculator-agent
  clients: 1
  training: { strategy: C2, batch: 1, groupSize: 2, defaultMaxTokens: 32 }
  worker: { threads: 1, seed: 1 }
  eval: { episodes: 2, everyMinutes: 0.1 }
search:
  lr: { choice: [0.0001, 0.0003] }
optimizer: { sampler: grid, pruner: { type: none } }
budget: { trials: 2, minutesPerTrial: 0.2 }
workers: { local: 1 }
`;

describe.skipIf(missing !== null)('Campaigns panel', () => {
  let dir: string;
  let ui: UiProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentjet-e2e-campaign-'));
    writeFileSync(join(dir, 'campaign.yaml'), CAMPAIGN);
    ui = await startUiProcess(join(dir, 'data'));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1440, height: 1100 } });
    await page.goto(ui.url);
    await byTestId(page, 'nav-campaigns').waitFor({ state: 'visible', timeout: 30_000 });
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== 'fail' || !page || page.isClosed()) return;
    await screenshot(page, 'failed-campaigns').catch(() => undefined);
    console.error(`agentjet ui output (tail):\n${ui.output().slice(-3000)}`);
  });

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    if (ui && ui.child.exitCode === null) await ui.stop(60_000);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('starts a campaign and shows its trials, charts and report', { timeout: 900_000 }, async () => {
    const panel = await showPanel(page, 'campaigns');
    await byTestId(page, 'campaign-file').fill(join(dir, 'campaign.yaml'));
    await byTestId(page, 'campaign-start').click();
    await byTestId(page, 'campaign-item').first().waitFor({ state: 'visible', timeout: 60_000 });
    // A trial appears while it runs, then both finish.
    await waitForNumberAttr(
      page,
      'campaign-detail',
      'data-trials',
      (n) => n >= 1,
      120_000,
      'the first trial to appear',
    );
    await poll(
      async () => ((await byTestId(page, 'campaign-state').textContent()) === 'done' ? true : undefined),
      420_000,
      'the campaign to finish',
      1000,
    );
    const rows = byTestId(page, 'trial-row');
    expect(await rows.count()).toBe(2);
    const states = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-state')));
    expect(states.every((s) => s === 'complete' || s === 'pruned' || s === 'failed')).toBe(true);
    expect(states.filter((s) => s === 'complete').length).toBeGreaterThanOrEqual(1);
    expect(
      Number(await byTestId(page, 'campaign-chart-eval-curves').getAttribute('data-marks')),
    ).toBeGreaterThanOrEqual(1);
    expect(Number(await byTestId(page, 'campaign-chart-scatter-lr').getAttribute('data-marks'))).toBe(2);
    expect(await panel.textContent()).toContain('report.html');
    await byTestId(page, 'agent-off').waitFor({ state: 'visible' });
    await screenshot(page, 'campaigns');
  });
});
