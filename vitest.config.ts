// Vitest: TypeScript unit and integration tests live beside the code as `*.test.ts(x)`.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'src/**/*.test.{ts,tsx}',
      'gpu-worker/src/**/*.test.ts',
      'resources/examples/**/*.test.ts',
      'scripts/**/*.test.ts',
      'bench/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', 'e2e/**', 'out/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
