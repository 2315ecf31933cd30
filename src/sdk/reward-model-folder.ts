// Reading a reward-model folder: its manifest (parsed, never trusted), every listed file checked against
// its SHA-256, and the folder's identity — the SHA-256 of the manifest — compared with what the reward
// code expects, so the model a client scores with is exactly the one its code version names. Every file
// the manifest names is a plain file of the folder itself (the schema refuses paths; a symbolic link
// leading out of the folder is refused here), and errors never quote a file's contents.
import { createHash } from 'node:crypto';
import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { REWARD_MODEL_MANIFEST, RewardModelManifestSchema, type RewardModelManifest } from '../shared/reward-model';

export const sha256Hex = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');

export interface RewardModelFiles {
  folder: string;
  manifest: RewardModelManifest;
  /** SHA-256 of reward_model.json. */
  sha256: string;
  onnx: Uint8Array;
  tokenizerJson: object;
  tokenizerConfig: object;
  chatTemplate: string;
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Parses a JSON object; the error names the file but never quotes it (JSON.parse's message does). */
function parseJsonObject(text: string, what: string): object {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${what} is not valid JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${what} is not a JSON object`);
  return value;
}

/** The real path of `name` in `folder` (real path `root`): a regular file inside it, or an error naming `field`. */
async function fileInside(root: string, name: string, field: string, manifestPath: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(join(root, name));
  } catch (err) {
    throw new Error(`${manifestPath}: ${field} ${JSON.stringify(name)} cannot be read (${message(err)})`);
  }
  const rel = relative(root, real);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel))
    throw new Error(`${manifestPath}: ${field} ${JSON.stringify(name)} leads outside the folder (a symbolic link)`);
  if (!(await stat(real)).isFile())
    throw new Error(`${manifestPath}: ${field} ${JSON.stringify(name)} is not a regular file`);
  return real;
}

/** Loads and checks a folder; errors name the file and what is wrong. */
export async function readRewardModelFolder(folder: string, expectSha256?: string): Promise<RewardModelFiles> {
  const manifestPath = join(folder, REWARD_MODEL_MANIFEST);
  const raw = await readFile(manifestPath).catch((err: unknown) => {
    throw new Error(`${folder} is not a reward-model folder: cannot read ${REWARD_MODEL_MANIFEST} (${message(err)})`);
  });
  const sha256 = sha256Hex(raw);
  if (expectSha256 !== undefined && sha256 !== expectSha256) {
    throw new Error(
      `${manifestPath}: SHA-256 ${sha256.slice(0, 12)}… is not the expected ${expectSha256.slice(0, 12)}… (the ` +
        'folder changed since the reward code pointed at it)',
    );
  }
  const parsed = RewardModelManifestSchema.safeParse(parseJsonObject(raw.toString('utf8'), manifestPath));
  if (!parsed.success)
    throw new Error(
      `${manifestPath}: ` +
        `${parsed.error.issues.map((i) => `${i.path.join('.') || '(manifest)'}: ${i.message}`).join('; ')}`,
    );
  const manifest = parsed.data;
  const needed: [field: string, name: string][] = [
    ['onnx.file', manifest.onnx.file],
    ['tokenizer.tokenizer', manifest.tokenizer.tokenizer],
    ['tokenizer.config', manifest.tokenizer.config],
    ['tokenizer.chatTemplate', manifest.tokenizer.chatTemplate],
  ];
  const root = await realpath(folder);
  const contents = new Map<string, Buffer>();
  for (const [field, name] of needed) {
    const digest = manifest.files[name];
    if (digest === undefined) throw new Error(`${manifestPath}: lists no hash for ${name}`);
    const data = await readFile(await fileInside(root, name, field, manifestPath));
    if (sha256Hex(data) !== digest)
      throw new Error(
        `${join(folder, name)}: its SHA-256 differs from the manifest's (the folder is damaged or was edited)`,
      );
    contents.set(name, data);
  }
  const text = (name: string): string => contents.get(name)!.toString('utf8');
  return {
    folder,
    manifest,
    sha256,
    onnx: new Uint8Array(contents.get(manifest.onnx.file)!),
    tokenizerJson: parseJsonObject(text(manifest.tokenizer.tokenizer), join(folder, manifest.tokenizer.tokenizer)),
    tokenizerConfig: parseJsonObject(text(manifest.tokenizer.config), join(folder, manifest.tokenizer.config)),
    chatTemplate: text(manifest.tokenizer.chatTemplate),
  };
}
