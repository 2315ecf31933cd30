// Monaco, bundled offline: its web workers come from Vite `?worker` imports, @monaco-editor/react's
// loader is pointed at this bundle (never a CDN), and the TypeScript service is configured for the
// run's client files (ESNext modules, bundler resolution, strict, no emit). Import `monaco` from here.
import { loader } from '@monaco-editor/react';
import * as monaco from 'monaco-editor';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';
import JsonWorker from 'monaco-editor/languages/features/json/json.worker?worker';
import TsWorker from 'monaco-editor/languages/features/typescript/ts.worker?worker';

self.MonacoEnvironment = {
  getWorker(_workerId: string, label: string): Worker {
    if (label === 'typescript' || label === 'javascript') return new TsWorker();
    if (label === 'json') return new JsonWorker();
    return new EditorWorker();
  },
};

loader.config({ monaco });

/**
 * TypeScript's `ModuleResolutionKind.Bundler`: the bundled TypeScript (5.9) knows it; the enum in
 * Monaco's typings lags.
 */
const BUNDLER_RESOLUTION = 100 as monaco.typescript.ModuleResolutionKind;

const ts = monaco.typescript;
ts.typescriptDefaults.setCompilerOptions({
  target: ts.ScriptTarget.ESNext,
  module: ts.ModuleKind.ESNext,
  moduleResolution: BUNDLER_RESOLUTION,
  strict: true,
  // Packages without a model are stubbed as `any` (see ambientDeclarations), which would turn
  // every callback over their types into a false "implicitly has an 'any' type" error.
  noImplicitAny: false,
  noEmit: true,
  allowImportingTsExtensions: false,
  esModuleInterop: true,
  allowSyntheticDefaultImports: true,
  resolveJsonModule: true,
  isolatedModules: true,
  skipLibCheck: true,
  // No `lib`: target ESNext brings the full default library (ES + DOM). (`lib` here would take file names.)
});
ts.typescriptDefaults.setDiagnosticsOptions({ noSemanticValidation: false, noSyntaxValidation: false });
// Read-only SDK and shared sources are models too: sync them all so relative imports resolve.
ts.typescriptDefaults.setEagerModelSync(true);

monaco.editor.defineTheme('agentjet-dark', {
  base: 'vs-dark',
  inherit: true,
  rules: [],
  colors: { 'editor.background': '#14161a', 'editorGutter.background': '#14161a' },
});
monaco.editor.defineTheme('agentjet-light', {
  base: 'vs',
  inherit: true,
  rules: [],
  colors: { 'editor.background': '#ffffff' },
});

/** The Monaco theme that matches the shell's (a `theme-light` class on <html> means light). */
export function editorTheme(): string {
  return document.documentElement.classList.contains('theme-light') ? 'agentjet-light' : 'agentjet-dark';
}
// Monaco's theme is global: follow the shell's theme switch.
new MutationObserver(() => monaco.editor.setTheme(editorTheme())).observe(document.documentElement, {
  attributes: true,
  attributeFilter: ['class'],
});

/**
 * TypeScript colouring without the language service, for read-only views (the diff editor): their
 * models stay out of the TypeScript program, so old versions never clash with the live files.
 */
export const TYPESCRIPT_VIEW_LANGUAGE = 'typescript-view';
monaco.languages.register({ id: TYPESCRIPT_VIEW_LANGUAGE });
const grammar = import('monaco-editor/languages/definitions/typescript/typescript');
monaco.languages.setMonarchTokensProvider(
  TYPESCRIPT_VIEW_LANGUAGE,
  grammar.then((g) => g.language),
);
void grammar.then((g) => monaco.languages.setLanguageConfiguration(TYPESCRIPT_VIEW_LANGUAGE, g.conf));

/** The language of a read-only view of a file (no language service behind TypeScript/JavaScript). */
export function viewLanguage(language: string): string {
  return language === 'typescript' || language === 'javascript' ? TYPESCRIPT_VIEW_LANGUAGE : language;
}

let ambientLib: monaco.IDisposable | null = null;

/** Replaces the ambient declarations (stubs for bare npm imports) the TypeScript service sees. */
export function setAmbientDeclarations(content: string): void {
  ambientLib?.dispose();
  ambientLib = ts.typescriptDefaults.addExtraLib(content, 'file:///__agentjet__/ambient.d.ts');
}

export { monaco };
