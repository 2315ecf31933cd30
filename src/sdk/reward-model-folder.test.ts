// A reward-model folder from a stranger is read safely: every file the manifest names is a plain file of
// the folder (no `../`, no absolute path, no symbolic link out of it), errors never quote a file's
// contents, the pad token id must be a token of the tokenizer, and a runaway chat template is stopped.
// (The folder here is synthetic — the built-in model's tokenizer and an ONNX stand-in — so these checks
// run without onnxruntime; reward-model.integration.test.ts loads a real trained folder.)
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REWARD_MODEL_FORMAT, REWARD_MODEL_MANIFEST } from '../shared/reward-model';
import { TemplateBudgetError } from './bounded-template';
import { RewardModel } from './reward-model';
import { readRewardModelFolder, sha256Hex } from './reward-model-folder';
import { ConversationEncoder } from './reward-model-text';
import { BUILTIN_MODEL } from './testing/reward-model-fixture';

const base = mkdtempSync(join(tmpdir(), 'aj-rm-folder-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json', 'chat_template.jinja'];
const accuracy = { pairAccuracy: null, pointAccuracy: 0.5, pairs: 0, points: 2 };

/** A folder with the built-in tokenizer, a stand-in ONNX file and a manifest listing every file's hash. */
function makeFolder(name: string, patch: (m: Record<string, unknown>) => void = () => undefined): string {
  const dir = join(base, name);
  mkdirSync(dir);
  for (const f of TOKENIZER_FILES) copyFileSync(join(BUILTIN_MODEL, f), join(dir, f));
  writeFileSync(join(dir, 'model.onnx'), 'not really onnx');
  const files = Object.fromEntries(
    [...TOKENIZER_FILES, 'model.onnx'].map((f) => [f, sha256Hex(readFileSync(join(dir, f)))]),
  );
  const manifest: Record<string, unknown> = {
    format: REWARD_MODEL_FORMAT,
    version: 1,
    createdAt: 1_700_000_000_000,
    base: 'agentjet-tiny',
    loss: 'pointwise',
    maxLength: 256,
    architecture: 'Qwen2ForSequenceClassification',
    padTokenId: 0,
    truncation: 'left',
    onnx: {
      file: 'model.onnx',
      inputs: ['input_ids', 'attention_mask'],
      output: 'scores',
      maxAbsDiff: 0,
      exportSeconds: 1,
    },
    tokenizer: { tokenizer: 'tokenizer.json', config: 'tokenizer_config.json', chatTemplate: 'chat_template.jinja' },
    training: { conversations: 2, pointLabels: 2, pairLabels: 0, steps: 1, seconds: 1 },
    metrics: { heldoutAccuracy: null, heldout: accuracy, train: accuracy },
    scoreStats: { mean: 0, std: 1 },
    files,
  };
  patch(manifest);
  writeFileSync(join(dir, REWARD_MODEL_MANIFEST), JSON.stringify(manifest));
  return dir;
}

/** Points `field` of the manifest at `target` (listing target's real hash, as an attacker would). */
function pointing(field: 'onnx' | 'config', target: string): (m: Record<string, unknown>) => void {
  return (m) => {
    const files = m['files'] as Record<string, string>;
    files[target] = sha256Hex(readFileSync(target.startsWith('/') ? target : join(base, 'x', target)));
    if (field === 'onnx') m['onnx'] = { ...(m['onnx'] as object), file: target };
    else m['tokenizer'] = { ...(m['tokenizer'] as object), config: target };
  };
}

const conversation = {
  messages: [
    { role: 'user' as const, content: 'What is 2 + 2?' },
    { role: 'assistant' as const, content: '#### 4' },
  ],
};

describe('reading a reward-model folder', () => {
  it('reads a sound folder', async () => {
    const f = await readRewardModelFolder(makeFolder('sound'));
    expect(f.manifest.onnx.file).toBe('model.onnx');
    expect(f.chatTemplate).toContain('<|im_start|>');
  });

  it('refuses manifest paths that leave the folder: ../, absolute, and a symbolic link out of it', async () => {
    mkdirSync(join(base, 'x'));
    writeFileSync(join(base, 'x', 'model.onnx'), 'an onnx file elsewhere');
    const up = makeFolder('up', pointing('onnx', '../x/model.onnx'));
    await expect(readRewardModelFolder(up)).rejects.toThrow(
      'onnx.file: a file name inside the folder (no "/", "\\", ".." or absolute path); files.../x/model.onnx: Invalid key',
    );
    const abs = makeFolder('abs', pointing('config', '/etc/hostname'));
    await expect(readRewardModelFolder(abs)).rejects.toThrow('tokenizer.config: a file name inside the folder');

    const link = makeFolder('link');
    const secret = join(base, 'x', 'secret.json');
    writeFileSync(secret, '{"token": "s3cret"}');
    rmSync(join(link, 'tokenizer_config.json'));
    symlinkSync(secret, join(link, 'tokenizer_config.json'));
    const m = JSON.parse(readFileSync(join(link, REWARD_MODEL_MANIFEST), 'utf8')) as { files: Record<string, string> };
    m.files['tokenizer_config.json'] = sha256Hex(readFileSync(secret));
    writeFileSync(join(link, REWARD_MODEL_MANIFEST), JSON.stringify(m));
    await expect(readRewardModelFolder(link)).rejects.toThrow(
      'tokenizer.config "tokenizer_config.json" leads outside the folder',
    );
    // A link that stays inside the folder is an ordinary file.
    rmSync(join(link, 'tokenizer_config.json'));
    copyFileSync(join(BUILTIN_MODEL, 'tokenizer_config.json'), join(link, 'real-config.json'));
    symlinkSync('real-config.json', join(link, 'tokenizer_config.json'));
    m.files['tokenizer_config.json'] = sha256Hex(readFileSync(join(link, 'real-config.json')));
    writeFileSync(join(link, REWARD_MODEL_MANIFEST), JSON.stringify(m));
    expect((await readRewardModelFolder(link)).tokenizerConfig).toMatchObject({ eos_token: '<|im_end|>' });
  });

  it('names a file that is not JSON without quoting it', async () => {
    const dir = makeFolder('not-json', (m) => {
      (m['files'] as Record<string, string>)['tokenizer_config.json'] = sha256Hex('PASSWORD=hunter2\n');
    });
    writeFileSync(join(dir, 'tokenizer_config.json'), 'PASSWORD=hunter2\n');
    const err = await readRewardModelFolder(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe(`${join(dir, 'tokenizer_config.json')} is not valid JSON`);
    expect((err as Error).message).not.toMatch(/PASSWORD|hunter2/);
  });

  it('refuses a pad token id outside the vocabulary before loading the ONNX graph', async () => {
    const dir = makeFolder('pad', (m) => (m['padTokenId'] = 1e12));
    await expect(RewardModel.load(dir)).rejects.toThrow(
      'padTokenId 1000000000000 is not a token of the tokenizer (its vocabulary has 686 tokens)',
    );
    await expect(RewardModel.load(makeFolder('pad-686', (m) => (m['padTokenId'] = 686)))).rejects.toThrow(
      'padTokenId 686 is not a token',
    );
  });
});

describe('the conversation encoder', () => {
  const tokenizerJson = JSON.parse(readFileSync(join(BUILTIN_MODEL, 'tokenizer.json'), 'utf8')) as object;
  const tokenizerConfig = JSON.parse(readFileSync(join(BUILTIN_MODEL, 'tokenizer_config.json'), 'utf8')) as object;

  it('encodes with the model template, and stops a template that loops a million times', () => {
    const template = readFileSync(join(BUILTIN_MODEL, 'chat_template.jinja'), 'utf8');
    const ok = new ConversationEncoder(tokenizerJson, tokenizerConfig, template, 256);
    expect(ok.vocabSize).toBe(686);
    expect(ok.encode(conversation).length).toBeGreaterThan(5);
    const runaway = new ConversationEncoder(
      tokenizerJson,
      tokenizerConfig,
      '{% for i in range(1000000) %}{{ messages[0].content }}{% endfor %}',
      256,
    );
    expect(() => runaway.encode(conversation)).toThrow(TemplateBudgetError);
    expect(() => runaway.render(conversation)).toThrow(/chat template needed more than \d+ units of work/);
  });
});
