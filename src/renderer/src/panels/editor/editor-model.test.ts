import { describe, expect, it } from 'vitest';
import { session } from '../../test-fixtures';
import {
  ambientDeclarations,
  errorLocation,
  errorRange,
  fileTabTestId,
  fileUri,
  filesToSave,
  importSpecifiers,
  isBareSpecifier,
  isConnecting,
  isDirty,
  languageOf,
  pairDiffFiles,
  reconcileFile,
  resolveErrorPath,
  saveSummary,
  shortVersion,
} from './editor-model';

describe('file ids', () => {
  it('builds tab test ids and file URIs from workspace paths', () => {
    expect(fileTabTestId('resources/examples/calculator-agent/reward.ts')).toBe(
      'editor-file-resources_examples_calculator-agent_reward.ts',
    );
    expect(fileUri('./src/sdk/index.ts')).toBe('file:///src/sdk/index.ts');
    expect(fileUri('/src/sdk/index.ts')).toBe('file:///src/sdk/index.ts');
  });
  it('shortens versions and shows a dash for none', () => {
    expect(shortVersion('0123456789abcdef')).toBe('01234567');
    expect(shortVersion('abc')).toBe('abc');
    expect(shortVersion(null)).toBe('—');
  });
  it('picks a language by extension', () => {
    expect(languageOf('a/b.ts')).toBe('typescript');
    expect(languageOf('a/b.mjs')).toBe('javascript');
    expect(languageOf('client.py')).toBe('python');
    expect(languageOf('notes.txt')).toBe('plaintext');
  });
});

describe('reconcileFile', () => {
  it('takes the server content for a new or clean file', () => {
    expect(reconcileFile(undefined, 'a')).toEqual({ base: 'a', current: 'a' });
    expect(reconcileFile({ base: 'a', current: 'a' }, 'b')).toEqual({ base: 'b', current: 'b' });
  });
  it('keeps unsaved edits and moves their base', () => {
    const next = reconcileFile({ base: 'a', current: 'a+edit' }, 'b');
    expect(next).toEqual({ base: 'b', current: 'a+edit' });
    expect(isDirty(next)).toBe(true);
  });
  it('a file whose edit equals the server content becomes clean', () => {
    expect(isDirty(reconcileFile({ base: 'a', current: 'b' }, 'b'))).toBe(false);
  });
});

describe('filesToSave', () => {
  const files = [
    { path: 'reward.ts', editable: true, base: 'r', current: 'r2' },
    { path: 'client.ts', editable: true, base: 'c', current: 'c' },
    { path: 'sdk/index.ts', editable: false, base: 's', current: 's-changed' },
  ];
  it('sends only edited editable files', () => {
    expect(filesToSave(files, 'client.ts')).toEqual([{ path: 'reward.ts', content: 'r2' }]);
  });
  it('sends the entry file alone when nothing is edited (a plain restart), never read-only ones', () => {
    const clean = files.map((f) => ({ ...f, current: f.base }));
    expect(filesToSave(clean, 'client.ts')).toEqual([{ path: 'client.ts', content: 'c' }]);
    expect(filesToSave(clean, 'sdk/index.ts')).toEqual([{ path: 'reward.ts', content: 'r' }]);
    expect(
      filesToSave(
        clean.filter((f) => !f.editable),
        null,
      ),
    ).toEqual([]);
  });
  it('never sends more files than the API takes', () => {
    const many = Array.from({ length: 60 }, (_, i) => ({ path: `f${i}.ts`, editable: true, base: '', current: 'x' }));
    expect(filesToSave(many, null)).toHaveLength(50);
  });
});

describe('imports and ambient stubs', () => {
  const source = [
    "import OpenAI from 'openai';",
    "import { fileURLToPath } from 'node:url';",
    "import type { ChatMessage } from '../../../src/shared/chat';",
    'import { a,\n  b } from "zod";',
    "export { x } from './x';",
    "import './side-effect';",
    "const m = await import('dyn-pkg');",
    '// import nothing from here',
  ].join('\n');
  it('finds static, type, multi-line, re-export, side-effect and dynamic imports in order', () => {
    expect(importSpecifiers(source)).toEqual([
      'openai',
      'node:url',
      '../../../src/shared/chat',
      'zod',
      './x',
      './side-effect',
      'dyn-pkg',
    ]);
  });
  it('tells packages from files', () => {
    expect(isBareSpecifier('openai')).toBe(true);
    expect(isBareSpecifier('@ai-sdk/openai-compatible')).toBe(true);
    expect(isBareSpecifier('node:url')).toBe(true);
    expect(isBareSpecifier('./x')).toBe(false);
    expect(isBareSpecifier('../x')).toBe(false);
    expect(isBareSpecifier('/abs')).toBe(false);
  });
  it('declares every bare module once, sorted, plus Node globals', () => {
    const decl = ambientDeclarations([{ content: source }, { content: "import OpenAI from 'openai';" }]);
    const modules = decl.split('\n').filter((l) => l.startsWith('declare module'));
    expect(modules).toEqual([
      'declare module "dyn-pkg";',
      'declare module "node:url";',
      'declare module "openai";',
      'declare module "zod";',
    ]);
    expect(decl).toContain('declare const process');
  });
});

describe('compile errors', () => {
  const paths = [
    'resources/examples/calculator-agent/reward.ts',
    'resources/examples/calculator-agent/client-openai.ts',
    'reward.ts',
  ];
  it('resolves exact, absolute and client-relative paths', () => {
    expect(resolveErrorPath('resources/examples/calculator-agent/reward.ts', paths)).toBe(
      'resources/examples/calculator-agent/reward.ts',
    );
    expect(resolveErrorPath('/work/main/resources/examples/calculator-agent/client-openai.ts', paths)).toBe(
      'resources/examples/calculator-agent/client-openai.ts',
    );
    expect(resolveErrorPath('/tmp/x/resources/examples/calculator-agent/reward.ts', paths)).toBe(
      'resources/examples/calculator-agent/reward.ts',
    );
    expect(resolveErrorPath('calculator-agent/client-openai.ts', paths)).toBe(
      'resources/examples/calculator-agent/client-openai.ts',
    );
    expect(resolveErrorPath('elsewhere.ts', paths)).toBeNull();
  });
  it('maps 1-based locations to a range to the end of the line, and no location to line 1', () => {
    const err = { path: 'reward.ts', line: 3, column: 5, message: 'x' };
    expect(errorRange(err, 20)).toEqual({ startLineNumber: 3, startColumn: 5, endLineNumber: 3, endColumn: 21 });
    expect(errorRange({ ...err, line: 0, column: 0 }, 0)).toEqual({
      startLineNumber: 1,
      startColumn: 1,
      endLineNumber: 1,
      endColumn: 2,
    });
    expect(errorLocation(err)).toBe('reward.ts:3:5');
    expect(errorLocation({ ...err, line: 0 })).toBe('reward.ts');
  });
  it('summarises save results', () => {
    expect(
      saveSummary({ ok: true, codeVersion: 'v2', previousCodeVersion: 'v1', compileMs: 41.6, swapMs: 120.2 }),
    ).toBe('clients restarted in 120 ms (compiled in 42 ms)');
    expect(saveSummary({ ok: false, errors: [{ path: 'a', line: 1, column: 1, message: 'm' }] })).toBe(
      '1 compile error; running clients untouched',
    );
  });
});

describe('pairDiffFiles', () => {
  it('pairs by exact path or suffix, lists added and removed files, changed ones first', () => {
    const from = [
      { path: 'reward.ts', content: 'r1' },
      { path: 'client.ts', content: 'c' },
      { path: 'old.ts', content: 'o' },
    ];
    const to = [
      { path: 'resources/examples/x/client.ts', content: 'c' },
      { path: 'resources/examples/x/reward.ts', content: 'r2' },
      { path: 'resources/examples/x/new.ts', content: 'n' },
    ];
    expect(pairDiffFiles(from, to)).toEqual([
      { path: 'old.ts', original: 'o', modified: null },
      { path: 'resources/examples/x/new.ts', original: null, modified: 'n' },
      { path: 'reward.ts', original: 'r1', modified: 'r2' },
      { path: 'client.ts', original: 'c', modified: 'c' },
    ]);
  });
});

describe('isConnecting', () => {
  it('while the session connects or an activity other than stopping runs', () => {
    expect(isConnecting(null)).toBe(false);
    expect(isConnecting(session('r1'))).toBe(false);
    expect(isConnecting(session('r1', { state: 'connecting' }))).toBe(true);
    const activity = { phase: 'compiling', detail: '', fraction: null } as const;
    expect(isConnecting(session('r1', { activity }))).toBe(true);
    expect(isConnecting(session('r1', { activity: { ...activity, phase: 'stopping' } }))).toBe(false);
  });
});
