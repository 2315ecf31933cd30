// An `agentjet ui` session with a fake workbench: it serves, connects at once when asked (with the
// local defaults filled in), reports a failed connect without dying, and disposes everything.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeBackend, FakeEvents } from './test-support';
import { startUiSession, type UiSessionOptions } from './ui-session';

let dir: string;
let backend: FakeBackend;
let events: FakeEvents;
let disposed: number;
let lines: string[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ui-session-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>ui</title>');
  backend = new FakeBackend();
  events = new FakeEvents();
  disposed = 0;
  lines = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const options = (over: Partial<UiSessionOptions> = {}): UiSessionOptions => ({
  host: '127.0.0.1',
  port: 0,
  dataDir: join(dir, 'data'),
  connectLocal: null,
  localDefaults: {},
  createWorkbench: async () => ({
    backend,
    onEvent: events.onEvent,
    dispose: async () => void disposed++,
  }),
  staticDir: dir,
  repoRoot: dir,
  out: (l) => lines.push(l),
  ...over,
});

describe('startUiSession', () => {
  it('serves the UI, prints the tokened URL, connects at once with the local defaults, disposes all', async () => {
    const ui = await startUiSession(
      options({
        connectLocal: { model: 'builtin', example: 'calculator-agent', clients: 2 },
        localDefaults: { batch: 2, groupSize: 2 },
      }),
    );
    expect((await ui.connected)?.runId).toBe('run-1');
    expect(backend.localConnects).toEqual([
      { model: 'builtin', example: 'calculator-agent', clients: 2, batch: 2, groupSize: 2 },
    ]);
    expect(lines).toContain(`agentjet ui: open ${ui.bridge.pageUrl}`);
    expect(ui.bridge.pageUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]{20,}$/);
    const page = await fetch(ui.bridge.url);
    expect(await page.text()).toContain('<title>ui</title>');
    expect(await ui.backend.appInfo({})).toMatchObject({ transport: 'websocket' });
    expect(events.count).toBe(1);
    await ui.dispose();
    await ui.dispose();
    expect(disposed).toBe(1);
    expect(events.count).toBe(0);
    await expect(fetch(ui.bridge.url)).rejects.toThrow();
  });

  it('keeps serving when the immediate connect fails, and says so', async () => {
    backend.failLocal = 'no python';
    const ui = await startUiSession(
      options({ connectLocal: { model: 'builtin', example: 'calculator-agent', clients: 1 } }),
    );
    expect(await ui.connected).toBeNull();
    expect(lines.some((l) => l.includes('the local connect failed: no python'))).toBe(true);
    expect((await fetch(ui.bridge.url)).status).toBe(200);
    await ui.dispose();
  });

  it('names a busy port and disposes the services it started', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const address = blocker.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      await expect(startUiSession(options({ port }))).rejects.toThrow(`port ${port} on 127.0.0.1 is in use`);
      expect(disposed).toBe(1);
    } finally {
      blocker.close();
    }
  });
});
