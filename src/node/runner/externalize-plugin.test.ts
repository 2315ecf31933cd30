// The externalize plugin's filter: which import paths it sees (every other one esbuild resolves alone).
import { describe, expect, it } from 'vitest';
import { NOT_RELATIVE_NOR_NODE_PREFIXED } from './externalize-plugin';

describe('externalize plugin filter', () => {
  it('passes bare package names (node-like ones included) and leaves out relative, absolute and node: paths', () => {
    const seen = [
      'zod',
      '@scope/pkg',
      'n',
      'no',
      'nod',
      'node',
      'node-fetch',
      'nodemailer',
      'fs',
      'C:\\x',
      'file:///x',
    ];
    for (const path of seen) expect(NOT_RELATIVE_NOR_NODE_PREFIXED.test(path), path).toBe(true);
    for (const path of ['./x', '../x', '.', '/abs/x', 'node:fs', 'node:fs/promises'])
      expect(NOT_RELATIVE_NOR_NODE_PREFIXED.test(path), path).toBe(false);
  });
});
