// Keeps every client code version that was compiled (content hash → its source files) in a folder,
// so versions can be listed, reopened and compared later. One folder per version: files.json with
// the sources, then manifest.json, written last, marking the version complete.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { SourceFile } from './compile';

const CODE_VERSION = /^[0-9a-f]{12}$/;

export const CodeVersionManifestSchema = z.object({
  codeVersion: z.string().regex(CODE_VERSION),
  createdAt: z.number(),
  entry: z.string(),
  rootDir: z.string(),
  files: z.array(z.object({ path: z.string(), bytes: z.number(), sha256: z.string() })),
});
export type CodeVersionManifest = z.infer<typeof CodeVersionManifestSchema>;

const FilesSchema = z.array(z.object({ path: z.string(), contents: z.string() }));

export interface StoredVersion {
  manifest: CodeVersionManifest;
  files: SourceFile[];
}

/** What a compile produced, as the store needs it (a `CompileOk` fits). */
export interface VersionToStore {
  codeVersion: string;
  entry: string;
  rootDir: string;
  inputs: readonly SourceFile[];
}

async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}

async function readJson(path: string): Promise<unknown> {
  return JSON.parse(await readFile(path, 'utf8')) as unknown;
}

export class CodeStore {
  constructor(readonly dir: string) {}

  /** Stores a version unless it is already there; returns its manifest. */
  async save(v: VersionToStore, now = Date.now()): Promise<CodeVersionManifest> {
    if (!CODE_VERSION.test(v.codeVersion)) throw new Error(`not a code version: ${v.codeVersion}`);
    const existing = await this.manifest(v.codeVersion);
    if (existing) return existing;
    const folder = join(this.dir, v.codeVersion);
    await mkdir(folder, { recursive: true });
    const files = [...v.inputs].sort((a, b) => a.path.localeCompare(b.path));
    const manifest: CodeVersionManifest = {
      codeVersion: v.codeVersion,
      createdAt: now,
      entry: v.entry,
      rootDir: v.rootDir,
      files: files.map((f) => ({
        path: f.path,
        bytes: Buffer.byteLength(f.contents),
        sha256: createHash('sha256').update(f.contents).digest('hex'),
      })),
    };
    await writeAtomic(join(folder, 'files.json'), JSON.stringify(files));
    await writeAtomic(join(folder, 'manifest.json'), JSON.stringify(manifest, null, 2));
    return manifest;
  }

  /** Every complete version, oldest first. */
  async list(): Promise<CodeVersionManifest[]> {
    const names = await readdir(this.dir).catch(() => []);
    const manifests = await Promise.all(names.filter((n) => CODE_VERSION.test(n)).map((n) => this.manifest(n)));
    return manifests.filter((m): m is CodeVersionManifest => m !== null).sort((a, b) => a.createdAt - b.createdAt);
  }

  /** A version's manifest and sources, or null when it is not stored. */
  async get(codeVersion: string): Promise<StoredVersion | null> {
    const manifest = await this.manifest(codeVersion);
    if (!manifest) return null;
    const files = FilesSchema.parse(await readJson(join(this.dir, codeVersion, 'files.json')));
    return { manifest, files };
  }

  private async manifest(codeVersion: string): Promise<CodeVersionManifest | null> {
    if (!CODE_VERSION.test(codeVersion)) return null;
    const raw = await readJson(join(this.dir, codeVersion, 'manifest.json')).catch(() => null);
    const parsed = CodeVersionManifestSchema.safeParse(raw);
    return parsed.success ? parsed.data : null;
  }
}
