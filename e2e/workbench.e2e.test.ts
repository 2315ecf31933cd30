// The workbench in a browser, end to end: `agentjet ui` (real local worker with the built-in
// model, real calculator-agent clients, real SQLite) driven through headless Chromium. The steps
// build on each other (vitest runs them in order; the config bails on the first failure).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { badRemoteShowsError, connectLocalAndChart } from './flows';
import {
  byTestId,
  browserSkipReason,
  launchChromium,
  poll,
  screenshot,
  showPanel,
  startUiProcess,
  waitForNumberAttr,
  withTimeout,
  type UiProcess,
} from './harness';

const missing = browserSkipReason();
if (missing) console.warn(`browser e2e skipped: ${missing}`);

/** Same code version, allowing for a shortened display of the hash. */
const sameVersion = (a: string, b: string): boolean => a.length > 0 && b.length > 0 && (a.includes(b) || b.includes(a));

describe.skipIf(missing !== null)('workbench in a browser (agentjet ui)', () => {
  let dataDir: string;
  let ui: UiProcess;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  let markersBefore = 0;
  let versionBefore = '';
  let versionAfter = '';

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agentjet-e2e-'));
    // Small batches and a small held-out eval keep a training step to seconds on a CPU.
    ui = await startUiProcess(dataDir, [
      '--batch',
      '2',
      '--group-size',
      '2',
      '--eval-episodes',
      '2',
      '--eval-every',
      '20',
    ]);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1440, height: 960 } });
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('crash', () => console.error(`the page crashed (renderer process gone) at ${new Date().toISOString()}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && /Content Security Policy|Refused to/i.test(msg.text()))
        problems.push(`CSP: ${msg.text()}`);
    });
    await page.goto(ui.url);
    await byTestId(page, 'nav-connect').waitFor({ state: 'visible', timeout: 30_000 });
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== 'fail' || !page || page.isClosed()) return;
    const name = ctx.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
    // A page whose main thread is stuck answers nothing: bounded waits, and that is said.
    await screenshot(page, `failed-${name}`, 10_000).catch(() => undefined);
    const ids = await withTimeout(
      page.locator('[data-testid]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid'))),
      10_000,
    );
    console.error(
      `test ids on the page when "${ctx.task.name}" failed: ${ids ? [...new Set(ids)].join(' ') : '(the page did not answer within 10 s: its main thread is busy or hung)'}`,
    );
    console.error(`agentjet ui output (tail):\n${ui.output().slice(-3000)}`);
  });

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    if (ui && ui.child.exitCode === null) await ui.stop(10_000);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('a bad remote URL shows a clear error', async () => {
    const text = await badRemoteShowsError(page, '');
    expect(text.length).toBeGreaterThan(5);
  });

  it('connects a local worker (built-in model, calculator-agent) and reward points arrive', async () => {
    const { markers } = await connectLocalAndChart(page, '');
    markersBefore = markers;
  });

  it('edits the reward in Monaco, saves, and the clients restart on the new code version with a chart marker', async () => {
    await showPanel(page, 'editor');
    // The tab of resources/examples/calculator-agent/reward.ts ('/' → '_').
    const tab = byTestId(page, 'editor-file-resources_examples_calculator-agent_reward.ts').first();
    await tab.waitFor({ state: 'visible', timeout: 60_000 });
    await tab.click({ timeout: 30_000 });
    versionBefore = await poll(
      async () => (await byTestId(page, 'editor-code-version').textContent())?.trim() || undefined,
      30_000,
      'the running code version',
    );
    const editor = byTestId(page, 'editor-monaco');
    await editor.locator('.view-lines').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n// e2e: an edit that changes the code version\n');
    await byTestId(page, 'editor-save').click();
    versionAfter = await poll(
      async () => {
        const v = (await byTestId(page, 'editor-code-version').textContent())?.trim() ?? '';
        return v && v !== versionBefore ? v : undefined;
      },
      60_000,
      'a new code version after Save & restart',
    );
    await screenshot(page, 'editor');

    await showPanel(page, 'clients');
    const rows = await poll(
      async () => {
        const all = await byTestId(page, 'client-row').all();
        const local = [];
        for (const row of all)
          local.push({
            version: (await row.getAttribute('data-code-version')) ?? '',
            status: (await row.getAttribute('data-status')) ?? '',
          });
        const onNew = local.filter((r) => sameVersion(r.version, versionAfter) && r.status === 'running');
        return onNew.length >= 2 ? local : undefined;
      },
      60_000,
      'both local clients running the new code version',
    );
    expect(rows.filter((r) => sameVersion(r.version, versionAfter)).length).toBeGreaterThanOrEqual(2);
    await screenshot(page, 'clients');

    await showPanel(page, 'charts');
    await waitForNumberAttr(
      page,
      'chart-reward',
      'data-markers',
      (n) => n > markersBefore,
      60_000,
      'a code-version marker on the reward chart',
    );
    await screenshot(page, 'charts-marker');
  });

  it('shows a compile error inline and leaves the running clients alone', async () => {
    await showPanel(page, 'editor');
    await byTestId(page, 'editor-monaco').locator('.view-lines').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\nexport const broken = (;\n');
    await byTestId(page, 'editor-save').click();
    await byTestId(page, 'editor-error').first().waitFor({ state: 'visible', timeout: 30_000 });
    expect(await byTestId(page, 'editor-errors').count()).toBe(1);
    const version = (await byTestId(page, 'editor-code-version').textContent())?.trim() ?? '';
    expect(version).toBe(versionAfter);
    await screenshot(page, 'editor-compile-error');
  });

  it('opens an episode in the inspector: a merged sample with masked (trained) tokens', async () => {
    await showPanel(page, 'inspector');
    await byTestId(page, 'episode-row').first().waitFor({ state: 'visible', timeout: 60_000 });
    const found = await poll(
      async () => {
        const rows = await byTestId(page, 'episode-row').all();
        for (const row of rows.slice(0, 12)) {
          await row.click();
          const detail = byTestId(page, 'episode-detail');
          await detail.waitFor({ state: 'visible', timeout: 10_000 });
          const trained = detail.locator('[data-testid="sample-view"] .tok[data-mask="1"]');
          try {
            await trained.first().waitFor({ state: 'attached', timeout: 3000 });
          } catch {
            continue;
          }
          const context = await detail.locator('[data-testid="sample-view"] .tok[data-mask="0"]').count();
          return {
            id: await row.getAttribute('data-episode-id'),
            trained: await trained.count(),
            context,
            calls: await detail.locator('[data-testid="call-view"]').count(),
          };
        }
        return undefined;
      },
      90_000,
      'an episode whose merged sample has masked tokens',
      1000,
    );
    expect(found.id).toBeTruthy();
    expect(found.trained).toBeGreaterThan(0);
    expect(found.context).toBeGreaterThan(0);
    expect(found.calls).toBeGreaterThan(0);
    const title = await byTestId(page, 'episode-detail')
      .locator('[data-testid="sample-view"] .tok[data-mask="1"]')
      .first()
      .getAttribute('title');
    expect(Number.isFinite(Number(title))).toBe(true);
    await screenshot(page, 'inspector');
  });

  it('labels the open episode with the keyboard; the Rewards panel counts it and its queue proposes more', async () => {
    const bar = byTestId(page, 'label-bar');
    await bar.waitFor({ state: 'visible', timeout: 30_000 });
    await byTestId(page, 'episode-detail').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('g');
    await poll(
      async () => ((await byTestId(page, 'label-list').textContent()) ?? '').includes('good') || undefined,
      30_000,
      'a good label on the episode',
    );
    await screenshot(page, 'inspector-label');
    await showPanel(page, 'rewards');
    await waitForNumberAttr(page, 'label-counts', 'data-good', (n) => n >= 1, 30_000, 'the good label counted');
    await waitForNumberAttr(page, 'label-queue', 'data-items', (n) => n >= 1, 60_000, 'label-queue proposals');
    await byTestId(page, 'queue-item').waitFor({ state: 'visible', timeout: 30_000 });
    await byTestId(page, 'conversation').first().waitFor({ state: 'visible', timeout: 30_000 });
    await screenshot(page, 'rewards');
  });

  it('lists the live run in the runs panel', async () => {
    await showPanel(page, 'runs');
    await byTestId(page, 'run-row').first().waitFor({ state: 'visible', timeout: 30_000 });
    expect(await byTestId(page, 'run-row').count()).toBeGreaterThanOrEqual(1);
    await screenshot(page, 'runs');
  });

  it('exports a run from the runs panel: CSV, JSONL and a TensorBoard event file', async () => {
    await byTestId(page, 'run-row').first().locator('[data-testid="run-export"]').click();
    const note = byTestId(page, 'run-exported');
    await note.waitFor({ state: 'visible', timeout: 30_000 });
    const dir = (await note.locator('.mono').first().textContent()) ?? '';
    expect(dir.startsWith(join(dataDir, 'exports'))).toBe(true);
    expect(readdirSync(dir).sort()).toEqual([
      'episodes.csv',
      'episodes.jsonl',
      'evals.csv',
      'evals.jsonl',
      'steps.csv',
      'steps.jsonl',
      'tensorboard',
    ]);
    expect(readFileSync(join(dir, 'steps.csv'), 'utf8').split('\r\n').length).toBeGreaterThan(2);
    expect(readdirSync(join(dir, 'tensorboard'))[0]).toMatch(/^events\.out\.tfevents\./);
  });

  it('loaded under the CSP without violations or page errors (Monaco workers included)', () => {
    expect(problems).toEqual([]);
  });

  it('stops cleanly on SIGINT (clients, worker, database)', async () => {
    await browser.close();
    const res = await ui.stop(60_000);
    expect(res, ui.output().slice(-3000)).toMatchObject({ code: 0, signal: null });
  });
});
