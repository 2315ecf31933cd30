// What a rollout replica on another host must share with the trainer before it may attach: the same
// model architecture and tokenizer. Both sides hash the files of their model folder that define them
// (config, tokenizer, chat template) — not the weights, which the trainer's sync sends — and the worker
// refuses an attach whose files differ, naming them. The weight sync's header check (tensor count and
// sizes, weight_sync.py) stays the backstop for what the files do not show (LoRA settings).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The files hashed, when present: the architecture, the tokenizer and the chat template. */
export const MODEL_IDENTITY_FILES = [
  'config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'special_tokens_map.json',
  'added_tokens.json',
  'vocab.json',
  'merges.txt',
  'tokenizer.model',
  'chat_template.jinja',
  'chat_template.json',
] as const;

/** File name → the first 16 hex digits of its SHA-256 (absent files are left out). */
export type ModelFiles = Record<string, string>;

/** The hashes of `dir`'s identity files. */
export function modelFiles(dir: string): ModelFiles {
  const out: ModelFiles = {};
  for (const name of MODEL_IDENTITY_FILES) {
    const path = join(dir, name);
    if (existsSync(path)) out[name] = createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 16);
  }
  return out;
}

/** As an HTTP header value: `name=hash;name=hash`. */
export function formatModelFiles(files: ModelFiles): string {
  return Object.entries(files)
    .map(([name, hash]) => `${name}=${hash}`)
    .join(';');
}

/** A header value back (null: not of that form, or more entries than there are identity files). */
export function parseModelFiles(value: string): ModelFiles | null {
  if (value.length > 2048) return null;
  const out: ModelFiles = {};
  for (const part of value.split(';')) {
    if (part === '') continue;
    const m = /^([\w.-]{1,64})=([0-9a-f]{16})$/.exec(part);
    if (!m) return null;
    out[m[1]!] = m[2]!;
  }
  return Object.keys(out).length <= MODEL_IDENTITY_FILES.length ? out : null;
}

/** Why a replica host's model is not the trainer's (null: the same files). */
export function modelFilesMismatch(trainer: ModelFiles, replica: ModelFiles): string | null {
  const names = [...new Set([...Object.keys(trainer), ...Object.keys(replica)])].sort();
  const problems = names.flatMap((name) => {
    if (trainer[name] === replica[name]) return [];
    if (trainer[name] === undefined) return [`${name} (only the replica host has it)`];
    if (replica[name] === undefined) return [`${name} (missing on the replica host)`];
    return [`${name} (differs)`];
  });
  if (problems.length === 0) return null;
  return (
    `the replica host's model is not the trainer's: ${problems.join(', ')}; give \`agentjet replica --model\` ` +
    'a copy of the folder the worker loads'
  );
}
