// ESLint flat config: strict TypeScript everywhere, and import rules that keep the layers apart
// (DESIGN §3, STYLE habit 1): shared imports nothing platform-specific; gpu-worker imports only
// src/shared, and inside it worker.ts → server → swarm → rollout/trainer → engine, never back;
// src/node is the Node backend (services, store, bridge, campaigns, tasks, client runner) that both the
// Electron shell (src/main, the only importer of electron) and the CLI run: shared ← node ← {main, cli},
// with no per-file exemptions; the renderer is browser code; the preload only bridges.
// (Flat config replaces, not merges, a rule's options per file: each block lists all its patterns.)
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'node:*',
  'fs',
  'path',
  'os',
  'child_process',
  'net',
  'http',
  'https',
  'crypto',
  'stream',
  'worker_threads',
  'url',
  'util',
  'events',
  'zlib',
  'readline',
  'process',
  'buffer',
];
const restrict = (patterns, message) => ({ group: patterns, message });
const gpuWorkerBase = [
  restrict(['electron', 'react', 'react-dom'], 'gpu-worker is a headless server.'),
  restrict(
    ['**/src/main/**', '**/src/node/**', '**/src/renderer/**', '**/src/preload/**', '**/src/cli/**', '**/src/sdk/**'],
    'gpu-worker imports only from src/shared.',
  ),
];
/** A gpu-worker layer: may import the layers below it, never the ones above. */
const gpuLayer = (files, above, name) => ({
  files,
  ignores: ['gpu-worker/src/**/*.test.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          ...gpuWorkerBase,
          restrict(
            above,
            `gpu-worker layers: ${name} never imports the layers above it (worker.ts → server → swarm → rollout/trainer → engine).`,
          ),
        ],
      },
    ],
  },
});

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'out/**',
      'dist/**',
      '**/.venv/**',
      'gpu-worker/engine/**',
      'resources/models/**',
      'e2e-results/**',
      '**/*.d.ts.map',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/ban-ts-comment': 'error',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    files: ['src/shared/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            restrict(nodeBuiltins, 'src/shared is pure: no Node built-ins (DESIGN §3).'),
            restrict(
              ['electron', 'better-sqlite3', 'react', 'react-dom', 'ws'],
              'src/shared is pure: no platform libraries.',
            ),
            restrict(
              ['**/main/**', '**/renderer/**', '**/preload/**', '**/cli/**', '**/sdk/**', '**/gpu-worker/**'],
              'src/shared must not import upper layers.',
            ),
          ],
        },
      ],
    },
  },
  {
    files: ['gpu-worker/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: gpuWorkerBase }] },
  },
  gpuLayer(
    ['gpu-worker/src/engine/**/*.ts'],
    ['**/swarm/**', '**/server/**', '**/rollout/**', '**/trainer/**', '**/worker', '**/worker-config', '**/testing/**'],
    'engine',
  ),
  gpuLayer(
    ['gpu-worker/src/rollout/**/*.ts', 'gpu-worker/src/trainer/**/*.ts'],
    ['**/swarm/**', '**/server/**', '**/worker', '**/worker-config', '**/testing/**'],
    'rollout/trainer',
  ),
  gpuLayer(['gpu-worker/src/swarm/**/*.ts'], ['**/server/**', '**/worker', '**/testing/**'], 'swarm'),
  gpuLayer(['gpu-worker/src/server/**/*.ts'], ['**/worker', '**/testing/**'], 'server'),
  {
    files: ['src/node/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            restrict(
              ['electron', 'react', 'react-dom'],
              'src/node is plain Node code shared by the Electron shell and the CLI.',
            ),
            restrict(
              ['**/main/**', '**/cli/**', '**/renderer/**', '**/preload/**'],
              'src/node sits below the Electron shell (src/main) and the CLI: it imports src/shared, the SDK, the examples and the worker (gpu-worker) as a library.',
            ),
          ],
        },
      ],
    },
  },
  {
    files: ['src/main/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            restrict(
              ['**/cli/**', '**/renderer/**', '**/gpu-worker/**'],
              'src/main is the thin Electron shell: window, preload wiring and IPC over the backend in src/node.',
            ),
          ],
        },
      ],
    },
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            restrict(
              ['electron', 'react', 'react-dom', '**/renderer/**', '**/preload/**'],
              'The CLI is plain Node: the workbench through src/main, shared Node code through src/node.',
            ),
          ],
        },
      ],
    },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            restrict(nodeBuiltins, 'The renderer is browser code: no Node built-ins.'),
            restrict(['electron'], 'The renderer reaches main only through the WorkbenchApi.'),
            restrict(
              ['**/main/**', '**/preload/**', '**/cli/**', '**/gpu-worker/**'],
              'The renderer imports only src/shared.',
            ),
          ],
        },
      ],
    },
  },
  {
    files: ['src/preload/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            restrict(
              ['**/main/**', '**/renderer/**', '**/cli/**', '**/gpu-worker/**'],
              'The preload only bridges: electron + src/shared.',
            ),
          ],
        },
      ],
    },
  },
  {
    files: ['src/sdk/**/*.ts'],
    ignores: ['src/sdk/**/*.test.ts', 'src/sdk/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            restrict(
              [
                'electron',
                'react',
                'react-dom',
                '**/main/**',
                '**/renderer/**',
                '**/preload/**',
                '**/cli/**',
                '**/gpu-worker/**',
              ],
              'The SDK is what user clients import: src/shared and Node only.',
            ),
          ],
        },
      ],
    },
  },
  {
    files: ['resources/examples/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            restrict(
              ['electron', '**/src/main/**', '**/src/renderer/**', '**/src/preload/**', '**/gpu-worker/**'],
              'Examples are client code: src/shared and the SDK only.',
            ),
          ],
        },
      ],
    },
  },
);
