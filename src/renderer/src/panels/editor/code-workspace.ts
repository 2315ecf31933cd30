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

/** The editor's open file and the read-only files opened as extra tabs. */
export interface EditorTabs {
  active: string | null;
  readOnlyTabs: string[];
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
  /** The panel's tabs, kept here across unmounts (the one place): the open file and the extra read-only tabs. */
  private tabs: EditorTabs = { active: null, readOnlyTabs: [] };

  get view(): EditorTabs {
    return this.tabs;
  }

  setView(next: EditorTabs): void {
    if (
      next.active === this.tabs.active &&
      next.readOnlyTabs.length === this.tabs.readOnlyTabs.length &&
      next.readOnlyTabs.every((t, i) => t === this.tabs.readOnlyTabs[i])
    )
      return;
    this.tabs = next;
    this.emit();
  }

  /** Loads a run's files; unsaved edits of files still present are kept (see `reconcileFile`). */
  load(code: CodeFiles): void {
    if (code.runId !== this.runId) {
      this.clearErrors();
      this.tabs = { active: null, readOnlyTabs: [] };
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
      const next = reconcileFile(
        existing ? { base: existing.base, current: existing.model.getValue() } : undefined,
        file.content,
      );
      if (existing) {
        if (existing.model.getValue() !== next.current) existing.model.setValue(next.current);
        this.files.set(file.path, { editable: file.editable, base: next.base, model: existing.model });
      } else {
        const uri = monaco.Uri.parse(fileUri(file.path));
        monaco.editor.getModel(uri)?.dispose();
        const model = monaco.editor.createModel(next.current, languageOf(file.path), uri);
        this.modelSubscriptions.set(
          file.path,
          model.onDidChangeContent(() => this.emit()),
        );
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

  /** Compile errors with the file each points at (null: no file of the workspace matches). */
  locate(errors: readonly CompileError[]): LocatedError[] {
    const paths = this.paths();
    return errors.map((e) => ({ ...e, file: resolveErrorPath(e.path, paths) }));
  }

  /** Shows located compile errors as markers (squiggles), replacing the previous ones. */
  showErrors(located: readonly LocatedError[]): void {
    this.clearErrors();
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
    for (const [path, markers] of byFile)
      monaco.editor.setModelMarkers(this.files.get(path)!.model, MARKER_OWNER, markers);
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
