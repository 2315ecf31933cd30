// Vitest for the end-to-end tests: one file at a time in one fork, long timeouts (a real worker
// with the built-in model, real clients, a real browser). `npm run test:e2e`.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['e2e/**/*.e2e.test.ts'],
    // Fails the run, with the instruction, where Chromium is missing (unless AGENTJET_SKIP_E2E=1).
    globalSetup: ['e2e/global-setup.ts'],
    testTimeout: 240_000,
    hookTimeout: 240_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    // A failed step leaves the later ones nothing to build on.
    bail: 1,
  },
});
