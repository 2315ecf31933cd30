// The run directory: where a worker keeps everything it needs to resume — its config, the
// signing secret, generated tokens, the last checkpoint's state, the pool journal and the engine
// checkpoints. Writes that must survive a crash are atomic (temp file, fsync, rename, fsync dir).
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { CountersSchema, EvalResultSchema, StepMetricsSchema, type Counters } from '../../../src/shared/swarm-protocol';
import { explicitTokenProblem, newToken, replicaTokenClash, type Role, type TokenName } from './keys';

export interface RunFiles {
  dir: string;
  config: string;
  state: string;
  pool: string;
  secret: string;
  tokens: string;
  checkpoints: string;
  worker: string;
  counters: string;
}

export function runFiles(dir: string): RunFiles {
  return {
    dir,
    config: join(dir, 'config.json'),
    state: join(dir, 'state.json'),
    pool: join(dir, 'pool.jsonl'),
    secret: join(dir, 'secret'),
    tokens: join(dir, 'tokens.json'),
    checkpoints: join(dir, 'checkpoints'),
    worker: join(dir, 'worker.json'),
    counters: join(dir, 'counters.json'),
  };
}

/**
 * Creates the run folder (and makes an existing one) private: mode 0700, since it holds the
 * signing secret and tokens but also config, state, the pool's timelines and the checkpoints.
 */
export function preparePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some filesystems do not support fsync on directories; the rename is still atomic.
  }
}

/** Writes `data` to `path` so that a crash leaves either the old or the new content. */
export function writeFileAtomic(path: string, data: string | Buffer, mode = 0o600): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const fd = openSync(tmp, 'w', mode);
    try {
      writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    // No temporary file is left behind; the old content stays.
    rmSync(tmp, { force: true });
    throw err;
  }
  fsyncDir(dirname(path));
}

/** The run's signing secret (32 random bytes, mode 0600), created on first use. */
export function loadOrCreateSecret(files: RunFiles): Buffer {
  if (existsSync(files.secret)) {
    const hex = readFileSync(files.secret, 'utf8').trim();
    if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${files.secret} is not a 32-byte hex secret`);
    return Buffer.from(hex, 'hex');
  }
  const secret = randomBytes(32);
  writeFileAtomic(files.secret, secret.toString('hex'), 0o600);
  return secret;
}

const TokensFileSchema = z.object({ admin: z.string().min(8), join: z.string().min(8) });

/**
 * The admin and join tokens: explicit values (flags or AGENTJET_ADMIN_TOKEN / AGENTJET_JOIN_TOKEN)
 * win; otherwise they are read from `<run-dir>/tokens.json`, or generated into it (mode 0600). The
 * replica token is explicit or absent (never generated nor written: whoever wants one chooses it), and
 * is refused when it is the admin or join token, explicit or saved.
 */
export function resolveTokens(
  files: RunFiles,
  explicit: Partial<Record<TokenName, string>>,
): { tokens: Record<Role, string>; replica: string | null; file: string | null } {
  const problem = explicitTokenProblem(explicit);
  if (problem) throw new Error(problem);
  const replica = explicit.replica ?? null;
  if (explicit.admin && explicit.join)
    return { tokens: { admin: explicit.admin, join: explicit.join }, replica, file: null };
  let saved: Record<Role, string> | null = null;
  if (existsSync(files.tokens)) saved = TokensFileSchema.parse(JSON.parse(readFileSync(files.tokens, 'utf8')));
  const tokens = {
    admin: explicit.admin ?? saved?.admin ?? newToken('adm'),
    join: explicit.join ?? saved?.join ?? newToken('join'),
  };
  if (tokens.admin === tokens.join) throw new Error('the admin and join tokens must differ');
  // Explicit tokens were checked against each other above: a clash left is with one saved in tokens.json.
  const inFile = { admin: `the admin token in ${files.tokens}`, join: `the join token in ${files.tokens}` };
  const clash = replicaTokenClash(explicit.replica, tokens, inFile);
  if (clash) throw new Error(clash);
  if (!saved || saved.admin !== tokens.admin || saved.join !== tokens.join)
    writeFileAtomic(files.tokens, `${JSON.stringify(tokens, null, 2)}\n`, 0o600);
  return { tokens, replica, file: files.tokens };
}

/** What a checkpoint records besides the engine folder. */
export const SavedStateSchema = z.object({
  version: z.literal(1),
  step: z.number().int().min(0),
  weightVersion: z.number().int().min(0),
  /** Engine checkpoint folder (relative to the run dir), null before the first one. */
  checkpoint: z.string().nullable(),
  counters: CountersSchema,
  eval: z.array(EvalResultSchema),
  lastStep: StepMetricsSchema.nullable(),
  savedAt: z.number(),
});
export type SavedState = z.infer<typeof SavedStateSchema>;

export function readState(files: RunFiles): SavedState | null {
  if (!existsSync(files.state)) return null;
  return SavedStateSchema.parse(JSON.parse(readFileSync(files.state, 'utf8')));
}

export function writeState(files: RunFiles, state: SavedState): void {
  writeFileAtomic(files.state, `${JSON.stringify(state, null, 2)}\n`);
}

export const emptyCounters = (): Counters => ({
  claimed: 0,
  ended: 0,
  aborted: 0,
  expired: 0,
  calls: 0,
  completionTokens: 0,
  malformedToolCalls: 0,
  trainedEpisodes: 0,
  droppedEpisodes: 0,
  engineRestarts: 0,
});
