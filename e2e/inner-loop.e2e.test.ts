// The researcher's inner loop in a browser, end to end (docs/inner-loop.md): `agentjet ui` with a
// real local worker (built-in model), real calculator-agent clients and real SQLite, driven through
// headless Chromium. An unsaved wrong reward rule tried on recorded episodes lists changed episodes
// (one opens in the inspector with recorded vs tried values); Fork here samples K continuations
// with their rewards, and saved as a probe charts a point; quarantining the running code version holds its pooled episodes. A batch
// larger than the test's episodes keeps every ended episode pooled (untrained) and the CPU free.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  byTestId,
  browserSkipReason,
  launchChromium,
  poll,
  screenshot,
  showPanel,
  startUiProcess,
  waitForNumberAttr,
  type UiProcess,
} from './harness';

const missing = browserSkipReason();
if (missing) console.warn(`browser e2e skipped: ${missing}`);

describe.skipIf(missing !== null)('inner loop in a browser: reward try, fork, quarantine', () => {
  let dataDir: string;
  let ui: UiProcess;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agentjet-e2e-inner-'));
    ui = await startUiProcess(dataDir, ['--batch', '256', '--group-size', '2', '--eval-episodes', '0']);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1440, height: 960 } });
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    await page.goto(ui.url);
    await byTestId(page, 'nav-connect').waitFor({ state: 'visible', timeout: 30_000 });
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== 'fail' || !page || page.isClosed()) return;
    await screenshot(page, `inner-failed-${ctx.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 50)}`, 10_000).catch(
      () => undefined,
    );
    console.error(`agentjet ui output (tail):\n${ui.output().slice(-3000)}`);
  });

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    if (ui && ui.child.exitCode === null) await ui.stop(20_000);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('connects a local worker and records ended episodes', async () => {
    await showPanel(page, 'connect');
    await byTestId(page, 'connect-example').selectOption('calculator-agent');
    await byTestId(page, 'connect-clients').fill('2');
    await byTestId(page, 'connect-local-submit').click();
    await poll(
      async () =>
        (await byTestId(page, 'session-state').textContent({ timeout: 2000 }))?.trim() === 'running' || undefined,
      150_000,
      'the local worker to serve',
    );
    await showPanel(page, 'inspector');
    await byTestId(page, 'episode-row').first().waitFor({ state: 'visible', timeout: 120_000 });
  });

  it('tries an unsaved wrong reward on recorded episodes and opens a changed one in the inspector', async () => {
    await showPanel(page, 'editor');
    const tab = byTestId(page, 'editor-file-resources_examples_calculator-agent_reward.ts').first();
    await tab.waitFor({ state: 'visible', timeout: 60_000 });
    await tab.click();
    await byTestId(page, 'editor-monaco').locator('.view-lines').click();
    await page.keyboard.press('Control+End');
    // `reward` wins over `calcScore` in reward try: every episode now scores 0.5.
    await page.keyboard.type('\nexport const reward = (): number => 0.5;\n');
    await byTestId(page, 'editor-try').click();
    await byTestId(page, 'reward-try-n').fill('20');
    const changed = await poll(
      async () => {
        await byTestId(page, 'reward-try-run').click();
        const n = await waitForNumberAttr(page, 'reward-try-result', 'data-changed', (x) => x >= 0, 60_000, 'a try');
        return n >= 1 ? n : undefined;
      },
      120_000,
      'changed episodes in the reward try',
      2000,
    );
    expect(changed).toBeGreaterThanOrEqual(1);
    expect(await byTestId(page, 'reward-try-changed').count()).toBe(changed);
    await screenshot(page, 'inner-reward-try');
    const first = byTestId(page, 'reward-try-changed').first();
    const episodeId = await first.getAttribute('data-episode-id');
    await first.click();
    await byTestId(page, 'panel-inspector').waitFor({ state: 'visible', timeout: 15_000 });
    await page.locator(`[data-testid="episode-detail"][data-episode-id="${episodeId}"]`).waitFor({ timeout: 30_000 });
    expect((await byTestId(page, 'compare-new-reward').textContent())?.trim()).toBe('0.5');
  });

  it('forks the open episode at its first call and shows K continuations with rewards', async () => {
    await byTestId(page, 'fork-here').first().click();
    await byTestId(page, 'fork-k').fill('2');
    await byTestId(page, 'fork-run').click();
    await waitForNumberAttr(page, 'fork-result', 'data-continuations', (n) => n === 2, 120_000, 'two continuations');
    expect(await byTestId(page, 'fork-continuation').count()).toBe(2);
    expect(await byTestId(page, 'fork-recorded').count()).toBe(1);
    const rewards = await byTestId(page, 'fork-reward').allTextContents();
    expect(rewards).toHaveLength(3);
    for (const r of rewards) expect(r).toMatch(/^reward (0|1)/);
    await screenshot(page, 'inner-fork');
    // Saved as a probe, the fork is a point over weight versions on the Charts panel.
    await byTestId(page, 'fork-save-probe').click();
    const saved = byTestId(page, 'fork-probe-note');
    await saved.waitFor({ state: 'visible', timeout: 120_000 });
    expect(await saved.textContent()).toMatch(/saved: \d+\/2 hits at w\d+/);
    await showPanel(page, 'charts');
    await waitForNumberAttr(page, 'chart-probes', 'data-points', (n) => n >= 1, 60_000, 'a probe point');
  });

  it('quarantines the running code version and sees its held episodes counted', async () => {
    await showPanel(page, 'editor');
    const running = page.locator('[data-testid="editor-versions"] li', { hasText: 'running' }).first();
    await running.waitFor({ state: 'visible', timeout: 30_000 });
    await running.locator('[data-testid="quarantine-version"]').click();
    await byTestId(page, 'quarantine-note').waitFor({ state: 'visible', timeout: 30_000 });
    // Every ended episode was pooled (the batch is never reached): the pool shrinks by at least one.
    const moved = /(\d+) episodes? out of the pool/.exec((await byTestId(page, 'quarantine-note').textContent()) ?? '');
    expect(Number(moved?.[1])).toBeGreaterThanOrEqual(1);
    const held = await poll(
      async () => {
        const n = Number(await running.locator('[data-testid="quarantine-held"]').getAttribute('data-held'));
        return n >= 1 ? n : undefined;
      },
      30_000,
      'held episodes of the running version',
    );
    expect(held).toBeGreaterThanOrEqual(1);
    await screenshot(page, 'inner-quarantine');
  });

  it('shows the Regressions view (empty store: how to fill it) and no page errors', async () => {
    await showPanel(page, 'regressions');
    await byTestId(page, 'regressions-empty').waitFor({ state: 'visible', timeout: 30_000 });
    expect(problems).toEqual([]);
  });
});
