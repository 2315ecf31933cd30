// ESLint flat config: strict TypeScript everywhere, and import rules that keep the layers apart
// (DESIGN §3, STYLE habit 1): shared imports nothing platform-specific; gpu-worker imports only
// src/shared; the renderer is browser code; the preload only bridges.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['node:*', 'fs', 'path', 'os', 'child_process', 'net', 'http', 'https', 'crypto', 'stream', 'worker_threads', 'url', 'util', 'events', 'zlib', 'readline', 'process', 'buffer'];
const restrict = (patterns, message) => ({ group: patterns, message });

export default tseslint.config(
  { ignores: ['node_modules/**', 'out/**', 'dist/**', '**/.venv/**', 'gpu-worker/engine/**', 'resources/models/**', 'e2e-results/**', '**/*.d.ts.map'] },
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
      'no-restricted-imports': ['error', { patterns: [
        restrict(nodeBuiltins, 'src/shared is pure: no Node built-ins (DESIGN §3).'),
        restrict(['electron', 'better-sqlite3', 'react', 'react-dom', 'ws'], 'src/shared is pure: no platform libraries.'),
        restrict(['**/main/**', '**/renderer/**', '**/preload/**', '**/cli/**', '**/sdk/**', '**/gpu-worker/**'], 'src/shared must not import upper layers.'),
      ] }],
    },
  },
  {
    files: ['gpu-worker/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        restrict(['electron', 'react', 'react-dom'], 'gpu-worker is a headless server.'),
        restrict(['**/src/main/**', '**/src/renderer/**', '**/src/preload/**', '**/src/cli/**', '**/src/sdk/**'], 'gpu-worker imports only from src/shared.'),
      ] }],
    },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        restrict(nodeBuiltins, 'The renderer is browser code: no Node built-ins.'),
        restrict(['electron'], 'The renderer reaches main only through the WorkbenchApi.'),
        restrict(['**/main/**', '**/preload/**', '**/cli/**', '**/gpu-worker/**'], 'The renderer imports only src/shared.'),
      ] }],
    },
  },
  {
    files: ['src/preload/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        restrict(['**/main/**', '**/renderer/**', '**/cli/**', '**/gpu-worker/**'], 'The preload only bridges: electron + src/shared.'),
      ] }],
    },
  },
  {
    files: ['src/sdk/**/*.ts'],
    ignores: ['src/sdk/**/*.test.ts', 'src/sdk/testing/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        restrict(['electron', 'react', 'react-dom', '**/main/**', '**/renderer/**', '**/preload/**', '**/cli/**', '**/gpu-worker/**'], 'The SDK is what user clients import: src/shared and Node only.'),
      ] }],
    },
  },
  {
    files: ['resources/examples/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        restrict(['electron', '**/src/main/**', '**/src/renderer/**', '**/src/preload/**', '**/gpu-worker/**'], 'Examples are client code: src/shared and the SDK only.'),
      ] }],
    },
  },
);
