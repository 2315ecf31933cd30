// Where a run's client code lives and how the editor names it: paths relative to a workspace
// root ('/'-separated, never `..`), editable when inside the client's own folder. A bundled example
// is never modified: edits are kept as an overlay in the run folder and compiled from there; a
// user folder is edited in place — and a save never follows a symlink out of the folder: the real
// path of every target is resolved first, and the file is opened without following a link.
import { constants, existsSync } from 'node:fs';
import { lstat, mkdir, open, readdir, readFile, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { WorkbenchError } from '../../shared/workbench-api';
import type { ClientCode } from '../runner/index';

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
    if (rel.includes('\0') || isAbsolute(rel) || relativeInside(this.spec.root, abs) === null)
      throw new WorkbenchError('bad_path', `${rel}: not a path inside the workspace`);
    return abs;
  }

  editable(abs: string): boolean {
    return relativeInside(this.spec.editableDir, resolve(abs)) !== null;
  }

  /** What the runner compiles: the entry, with the overlay for a bundled example. */
  clientCode(): ClientCode {
    if (this.overlay.size === 0) return { entry: this.spec.entry };
    return {
      entry: this.spec.entry,
      overlay: Object.fromEntries([...this.overlay].map(([rel, text]) => [this.abs(rel), text])),
    };
  }

  /** The TypeScript/JavaScript files directly in the editable folder (absolute paths). */
  async ownSources(): Promise<string[]> {
    const names = await readdir(this.spec.editableDir).catch(() => []);
    return names
      .filter((n) => /\.[cm]?[jt]sx?$/.test(n) && !/\.test\.[cm]?[jt]sx?$/.test(n))
      .map((n) => join(this.spec.editableDir, n));
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
      if (!this.editable(abs))
        throw new WorkbenchError(
          'not_editable',
          `${f.path} is not editable (only files in ${this.rel(this.spec.editableDir) ?? this.spec.editableDir}/ are)`,
        );
    }
    const base = this.spec.overlayDir ?? this.spec.editableDir;
    if (this.spec.overlayDir) await mkdir(this.spec.overlayDir, { recursive: true });
    const targets = await Promise.all(
      files.map(async (f) => {
        const rel = this.rel(this.abs(f.path))!;
        const target = this.spec.overlayDir ? join(this.spec.overlayDir, ...rel.split('/')) : this.abs(f.path);
        return { f, rel, real: await realTargetInside(base, target, f.path) };
      }),
    );
    for (const { f, rel, real } of targets) {
      await mkdir(dirname(real), { recursive: true });
      await writeNoFollow(real, f.content);
      if (this.spec.overlayDir) this.overlay.set(rel, f.content);
    }
  }
}

/**
 * The real path `target` would be written at (symlinks in its folders, or the file itself being
 * one, resolved), which must lie inside the real `base`; a `not_editable` error otherwise.
 */
export async function realTargetInside(base: string, target: string, shown: string): Promise<string> {
  const realBase = await realpath(base);
  // The nearest existing folder on the way; the rest is created inside it.
  const missing: string[] = [];
  let dir = dirname(target);
  while (!existsSync(dir) && dirname(dir) !== dir) {
    missing.unshift(basename(dir));
    dir = dirname(dir);
  }
  let real = join(await realpath(dir), ...missing, basename(target));
  try {
    real = await realpath(real);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    // A dangling symlink would be followed by the write: refuse it like one pointing out.
    if (await isLink(real))
      throw new WorkbenchError(
        'not_editable',
        `${shown} is a symbolic link to a file that does not exist; refusing to write through it`,
      );
  }
  if (relativeInside(realBase, real) === null) {
    throw new WorkbenchError(
      'not_editable',
      `${shown} resolves (through a symbolic link) to ${real}, outside the client folder; refusing to write there`,
    );
  }
  return real;
}

async function isLink(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => null))?.isSymbolicLink() ?? false;
}

/** Writes `content` to `path` without following a symlink there (O_NOFOLLOW where it exists). */
async function writeNoFollow(path: string, content: string): Promise<void> {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0);
  const h = await open(path, flags, 0o644);
  try {
    await h.writeFile(content);
  } finally {
    await h.close();
  }
}
