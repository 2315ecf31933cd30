// Vite `?worker` imports of Monaco's web workers (the renderer's tsconfig does not load vite/client).
declare module 'monaco-editor/editor/editor.worker?worker' {
  const EditorWorker: { new (options?: { name?: string }): Worker };
  export default EditorWorker;
}
declare module 'monaco-editor/languages/features/typescript/ts.worker?worker' {
  const TsWorker: { new (options?: { name?: string }): Worker };
  export default TsWorker;
}
declare module 'monaco-editor/languages/features/json/json.worker?worker' {
  const JsonWorker: { new (options?: { name?: string }): Worker };
  export default JsonWorker;
}
// Monaco's TypeScript Monarch grammar (colouring only, no language service); the file ships without typings.
declare module 'monaco-editor/languages/definitions/typescript/typescript' {
  import type { languages } from 'monaco-editor';
  export const conf: languages.LanguageConfiguration;
  export const language: languages.IMonarchLanguage;
}
