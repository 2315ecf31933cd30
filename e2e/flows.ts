// The user flows both e2e specs (browser and Electron) walk through, written against the
// renderer's data-testids. Each returns what the next one needs.
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { byTestId, poll, screenshot, showPanel, waitForNumberAttr, withTimeout } from './harness';

/** A bad remote URL: the connect panel shows the error (role=alert) and nothing connects. */
export async function badRemoteShowsError(page: Page, shotPrefix: string): Promise<string> {
  await showPanel(page, 'connect');
  await byTestId(page, 'connect-remote-url').fill('http://127.0.0.1:9');
  await byTestId(page, 'connect-remote-token').fill('not-a-real-admin-token');
  await byTestId(page, 'connect-remote-submit').click();
  const alert = byTestId(page, 'connect-error');
  await alert.waitFor({ state: 'visible', timeout: 60_000 });
  const text = (await alert.textContent())?.trim() ?? '';
  expect(await alert.getAttribute('role')).toBe('alert');
  expect(text).toMatch(/127\.0\.0\.1:9|reach|connect|refused/i);
  await screenshot(page, `${shotPrefix}connect-error`);
  return text;
}

/** Connects a local worker (built-in model, calculator-agent, 2 clients) and waits for reward points. */
export async function connectLocalAndChart(
  page: Page,
  shotPrefix: string,
  pointsTimeoutMs = 180_000,
): Promise<{ points: number; markers: number }> {
  await showPanel(page, 'connect');
  expect(await byTestId(page, 'connect-model').inputValue()).toBe('builtin');
  await byTestId(page, 'connect-example').selectOption('calculator-agent');
  await byTestId(page, 'connect-clients').fill('2');
  await byTestId(page, 'connect-local-submit').click();
  const state = await poll(
    async () => {
      const s = (await byTestId(page, 'session-state').textContent({ timeout: 2000 }))?.trim() ?? '';
      return ['running', 'updating', 'checkpointing', 'paused'].includes(s) ? s : undefined;
    },
    150_000,
    'the local worker to serve (session-state running)',
  );
  expect(state).not.toBe('failed');
  await screenshot(page, `${shotPrefix}connect`);
  await showPanel(page, 'charts');
  const points = await waitForNumberAttr(
    page,
    'chart-reward',
    'data-points',
    (n) => n >= 1,
    pointsTimeoutMs,
    'a reward point on the chart (a training step)',
  );
  // The step counter is shown (a CPU-starved first update may still be running, so ≥ 0).
  const step = Number((await byTestId(page, 'session-step').textContent({ timeout: 30_000 }))?.trim());
  expect(step).toBeGreaterThanOrEqual(0);
  // While the run trains and the charts draw, the page still answers (its main thread keeps up with the events).
  for (let i = 0; i < 3; i++)
    expect(
      await withTimeout(
        page.evaluate(() => document.readyState),
        10_000,
      ),
      'the page answers within 10 s with the charts open',
    ).toBe('complete');
  const markers = Number(await byTestId(page, 'chart-reward').getAttribute('data-markers'));
  expect(Number.isFinite(markers)).toBe(true);
  await screenshot(page, `${shotPrefix}charts`);
  return { points, markers };
}
