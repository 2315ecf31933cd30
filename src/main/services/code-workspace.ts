// Where a run's client code lives and how the editor names it: paths relative to a workspace
// root ('/'-separated, never `..`), editable when inside the client's own folder. A bundled example
// is never modified: edits are kept as an overlay in the run folder and compiled from there; a
// user folder is edited in place.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { WorkbenchError } from '../../shared/workbench-api';
import type { ClientCode } from '../../node/runner/index';

export interface WorkspaceSpec {
  /** Paths are shown relative to it (the repository root for the bundled examples). */
  root: string;
  /** The client entry file (absolute). */
  entry: string;
  /** Files inside it are editable. */
  editableDir: string;
  /** Bundled example: edits go to the overlay folder; otherwise they are written to disk. */
  overlayDir: string | null;
}

/** `rel` under `base` ('/'-separated), or null when it is outside. */
export function relativeInside(base: string, abs: string): string | null {
  const rel = relative(base, abs);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return null;
  return rel.split(sep).join('/');
}

export class CodeWorkspace {
  /** Edited contents by workspace-relative path (bundled examples only). */
  private readonly overlay = new Map<string, string>();

  private constructor(readonly spec: WorkspaceSpec) {}

  /** Opens a workspace, loading an overlay left in the run folder earlier. */
  static async open(spec: WorkspaceSpec): Promise<CodeWorkspace> {
    const ws = new CodeWorkspace(spec);
    if (spec.overlayDir && existsSync(spec.overlayDir)) {
      const entries = await readdir(spec.overlayDir, { recursive: true, withFileTypes: true });
      for (const e of entries) {
        if (!e.isFile()) continue;
        const abs = join(e.parentPath, e.name);
        const rel = relativeInside(spec.overlayDir, abs);
        if (rel) ws.overlay.set(rel, await readFile(abs, 'utf8'));
      }
    }
    return ws;
  }

  get entryPath(): string {
    return this.rel(this.spec.entry) ?? this.spec.entry;
  }

  /** Workspace-relative path of an absolute one, or null when outside the workspace. */
  rel(abs: string): string | null {
    return relativeInside(this.spec.root, resolve(abs));
  }

  /** Absolute path of a workspace-relative one; a `bad_path` error when it leaves the workspace. */
  abs(rel: string): string {
    const abs = resolve(this.spec.root, rel);
    if (rel.includes('\0') || isAbsolute(rel) || relativeInside(this.spec.root, abs) === null) throw new WorkbenchError('bad_path', `${rel}: not a path inside the workspace`);
    return abs;
  }

  editable(abs: string): boolean {
    return relativeInside(this.spec.editableDir, resolve(abs)) !== null;
  }

  /** What the runner compiles: the entry, with the overlay for a bundled example. */
  clientCode(): ClientCode {
    if (this.overlay.size === 0) return { entry: this.spec.entry };
    return { entry: this.spec.entry, overlay: Object.fromEntries([...this.overlay].map(([rel, text]) => [this.abs(rel), text])) };
  }

  /** The TypeScript/JavaScript files directly in the editable folder (absolute paths). */
  async ownSources(): Promise<string[]> {
    const names = await readdir(this.spec.editableDir).catch(() => []);
    return names.filter((n) => /\.[cm]?[jt]sx?$/.test(n) && !/\.test\.[cm]?[jt]sx?$/.test(n)).map((n) => join(this.spec.editableDir, n));
  }

  /** The current text of a file: the overlay's edit, or the disk. */
  async read(abs: string): Promise<string> {
    const rel = this.rel(abs);
    const edited = rel !== null ? this.overlay.get(rel) : undefined;
    return edited ?? readFile(abs, 'utf8');
  }

  /** Saves edited files (workspace-relative paths, each editable): to the overlay, or to disk for a user folder. */
  async save(files: readonly { path: string; content: string }[]): Promise<void> {
    for (const f of files) {
      const abs = this.abs(f.path);
      if (!this.editable(abs)) throw new WorkbenchError('not_editable', `${f.path} is not editable (only files in ${this.rel(this.spec.editableDir) ?? this.spec.editableDir}/ are)`);
    }
    for (const f of files) {
      const abs = this.abs(f.path);
      const rel = this.rel(abs)!;
      const target = this.spec.overlayDir ? join(this.spec.overlayDir, ...rel.split('/')) : abs;
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, f.content);
      if (this.spec.overlayDir) this.overlay.set(rel, f.content);
    }
  }
}
