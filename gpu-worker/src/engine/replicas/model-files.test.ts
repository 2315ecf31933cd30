// A replica host's model identity: the files hashed, their header form, and the mismatch message that
// names what differs; the engine facts compared after a remote replica's first load.
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EngineInfo } from '../../../../src/shared/engine-protocol';
import { BUILTIN_MODEL_DIR } from '../../resources';
import { formatModelFiles, MODEL_IDENTITY_FILES, modelFiles, modelFilesMismatch, parseModelFiles } from './model-files';
import { engineMismatch, hostOfHeader } from './remote-replicas';

describe('model identity files', () => {
  it('hash the config and tokenizer files, and survive the header round trip', () => {
    const files = modelFiles(BUILTIN_MODEL_DIR);
    expect(Object.keys(files)).toEqual(expect.arrayContaining(['config.json', 'tokenizer.json']));
    expect(parseModelFiles(formatModelFiles(files))).toEqual(files);
    expect(modelFilesMismatch(files, parseModelFiles(formatModelFiles(files))!)).toBeNull();
  });

  it('name what differs between a copy and the original', () => {
    const dir = mkdtempSync(join(tmpdir(), 'aj-model-copy-'));
    try {
      for (const f of MODEL_IDENTITY_FILES)
        if (existsSync(join(BUILTIN_MODEL_DIR, f))) copyFileSync(join(BUILTIN_MODEL_DIR, f), join(dir, f));
      const original = modelFiles(BUILTIN_MODEL_DIR);
      expect(modelFilesMismatch(original, modelFiles(dir))).toBeNull();
      writeFileSync(join(dir, 'tokenizer.json'), '{}');
      rmSync(join(dir, 'config.json'));
      writeFileSync(join(dir, 'vocab.json'), '{}');
      const why = modelFilesMismatch(original, modelFiles(dir));
      expect(why).toMatch(/config\.json \(missing on the replica host\)/);
      expect(why).toMatch(/tokenizer\.json \(differs\)/);
      expect(why).toMatch(/vocab\.json \(only the replica host has it\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuse a header that is not of the form, or too long', () => {
    expect(parseModelFiles('config.json=0123456789abcdef')).toEqual({ 'config.json': '0123456789abcdef' });
    expect(parseModelFiles('config.json=xyz')).toBeNull();
    expect(parseModelFiles('../etc/passwd=0123456789abcdef')).toBeNull();
    expect(parseModelFiles('a=0123456789abcdef;'.repeat(200))).toBeNull();
    expect(parseModelFiles(Array.from({ length: 20 }, (_, i) => `f${i}=0123456789abcdef`).join(';'))).toBeNull();
  });
});

describe('a remote replica after its first load', () => {
  const info = (patch: Partial<EngineInfo>): EngineInfo => ({
    loaded: true,
    model: '/m',
    device: 'cpu',
    dtype: 'float32',
    params: 10,
    trainableParams: 10,
    vocabSize: 100,
    contextLength: 512,
    weightVersion: 0,
    lora: false,
    threads: 1,
    torch: 't',
    transformers: 't',
    eosTokenIds: [2],
    padTokenId: 0,
    ...patch,
  });

  it("is refused when its engine's tokenizer facts are not the trainer's", () => {
    expect(engineMismatch(info({}), info({ model: '/elsewhere', threads: 4 }))).toBeNull();
    expect(engineMismatch(info({}), info({ vocabSize: 101 }))).toMatch(/vocabSize 101 ≠ 100/);
    expect(engineMismatch(info({}), info({ eosTokenIds: [3] }))).toMatch(/end-of-sequence/);
  });

  it('reaches the store at the host name it dialled', () => {
    expect(hostOfHeader('gpu-box:8321')).toBe('gpu-box');
    expect(hostOfHeader('[::1]:8321')).toBe('::1');
    expect(hostOfHeader('10.0.0.5')).toBe('10.0.0.5');
    expect(hostOfHeader(undefined)).toBeNull();
    expect(hostOfHeader('bad host')).toBeNull();
  });
});
