// The editor's files as Monaco models, one per file at `file:///<path>` so the TypeScript service
// resolves the relative imports between them. Held at module level, like Monaco's own model
// registry, so unsaved edits survive switching tabs and panels (the panel may unmount).
import type { CodeFile, CodeFiles, CompileError } from '../../../../shared/workbench-api';
import { ambientDeclarations, errorRange, fileUri, languageOf, reconcileFile, resolveErrorPath } from './editor-model';
import { monaco, setAmbientDeclarations } from './monaco-setup';

const MARKER_OWNER = 'agentjet-compile';

export interface WorkspaceFile {
  path: string;
  editable: boolean;
  base: string;
  model: monaco.editor.ITextModel;
}

/** A compile error with the editor file it points at (null: no open file matches its path). */
export interface LocatedError extends CompileError {
  file: string | null;
}

export class CodeWorkspace {
  private readonly files = new Map<string, { editable: boolean; base: string; model: monaco.editor.ITextModel }>();
  private readonly viewStates = new Map<string, monaco.editor.ICodeEditorViewState>();
  private readonly listeners = new Set<() => void>();
  private readonly modelSubscriptions = new Map<string, monaco.IDisposable>();
  runId: string | null = null;
  /** The panel's view state, kept across unmounts: the open tab, extra read-only tabs, the last compile errors. */
  ui: { active: string | null; readOnlyTabs: string[]; errors: LocatedError[] } = { active: null, readOnlyTabs: [], errors: [] };

  /** Loads a run's files; unsaved edits of files still present are kept (see `reconcileFile`). */
  load(code: CodeFiles): void {
    if (code.runId !== this.runId) {
      this.clearErrors();
      this.ui = { active: null, readOnlyTabs: [], errors: [] };
    }
    this.runId = code.runId;
    const incoming = new Set(code.files.map((f) => f.path));
    for (const [path, f] of this.files) {
      if (incoming.has(path)) continue;
      this.modelSubscriptions.get(path)?.dispose();
      this.modelSubscriptions.delete(path);
      f.model.dispose();
      this.files.delete(path);
      this.viewStates.delete(path);
    }
    for (const file of code.files) {
      const existing = this.files.get(file.path);
      const next = reconcileFile(existing ? { base: existing.base, current: existing.model.getValue() } : undefined, file.content);
      if (existing) {
        if (existing.model.getValue() !== next.current) existing.model.setValue(next.current);
        this.files.set(file.path, { editable: file.editable, base: next.base, model: existing.model });
      } else {
        const uri = monaco.Uri.parse(fileUri(file.path));
        monaco.editor.getModel(uri)?.dispose();
        const model = monaco.editor.createModel(next.current, languageOf(file.path), uri);
        this.modelSubscriptions.set(file.path, model.onDidChangeContent(() => this.emit()));
        this.files.set(file.path, { editable: file.editable, base: next.base, model });
      }
    }
    setAmbientDeclarations(ambientDeclarations(code.files));
    this.emit();
  }

  list(): WorkspaceFile[] {
    return [...this.files].map(([path, f]) => ({ path, ...f }));
  }

  paths(): string[] {
    return [...this.files.keys()];
  }

  get(path: string): WorkspaceFile | null {
    const f = this.files.get(path);
    return f ? { path, ...f } : null;
  }

  isDirty(path: string): boolean {
    const f = this.files.get(path);
    return f !== undefined && f.model.getValue() !== f.base;
  }

  /** The editor's files with their current text, for `filesToSave`. */
  snapshot(): { path: string; editable: boolean; base: string; current: string }[] {
    return this.list().map((f) => ({ path: f.path, editable: f.editable, base: f.base, current: f.model.getValue() }));
  }

  /** After a successful save: the saved contents become the base (edits made meanwhile stay dirty). */
  markSaved(saved: readonly CodeFile[]): void {
    for (const s of saved) {
      const f = this.files.get(s.path);
      if (f) f.base = s.content;
    }
    this.emit();
  }

  /** Shows compile errors as markers (squiggles); returns them with the file each points at. */
  setErrors(errors: readonly CompileError[]): LocatedError[] {
    this.clearErrors();
    const paths = this.paths();
    const located = errors.map((e) => ({ ...e, file: resolveErrorPath(e.path, paths) }));
    const byFile = new Map<string, monaco.editor.IMarkerData[]>();
    for (const e of located) {
      if (e.file === null) continue;
      const model = this.files.get(e.file)!.model;
      const line = Math.min(Math.max(1, e.line), model.getLineCount());
      const range = errorRange({ ...e, line }, model.getLineLength(line));
      const list = byFile.get(e.file) ?? [];
      list.push({ ...range, message: e.message, severity: monaco.MarkerSeverity.Error, source: 'esbuild' });
      byFile.set(e.file, list);
    }
    for (const [path, markers] of byFile) monaco.editor.setModelMarkers(this.files.get(path)!.model, MARKER_OWNER, markers);
    return located;
  }

  clearErrors(): void {
    for (const f of this.files.values()) monaco.editor.setModelMarkers(f.model, MARKER_OWNER, []);
  }

  saveViewState(path: string, state: monaco.editor.ICodeEditorViewState | null): void {
    if (state) this.viewStates.set(path, state);
  }

  viewState(path: string): monaco.editor.ICodeEditorViewState | null {
    return this.viewStates.get(path) ?? null;
  }

  /** Called on any content change or (re)load. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(): void {
    for (const l of this.listeners) l();
  }
}

/** The one workspace of the renderer (Monaco's model registry is global too). */
export const codeWorkspace = new CodeWorkspace();
