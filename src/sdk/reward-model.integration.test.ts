// The SDK's reward-model scorer against the engine's Python side, on a folder the engine trained:
// the same token ids as the Python tokenizer (chat template rendered by @huggingface/jinja, tokenized by
// @huggingface/tokenizers, left truncation included), and onnxruntime-node scores equal to PyTorch's
// within 1e-4 — one at a time, batched by concurrent calls, and through scoreBatch.
import { copyFile, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scoreWithPython, type PythonScore } from '../node/services/reward-model-trainer';
import type { ChatMessage } from '../shared/chat';
import { ensembleScore } from '../shared/reward-model';
import { RewardEnsemble } from './reward-ensemble';
import { RewardModel } from './reward-model';
import { trainFixtureModel, type LabelledConversation } from './testing/reward-model-fixture';

let dir = '';
let folder = '';
let sha256 = '';
let convs: (LabelledConversation | (LabelledConversation & { long: true }))[] = [];
let python: PythonScore[] = [];
let rmodel: RewardModel;

beforeAll(async () => {
  const f = await trainFixtureModel({ maxLength: 256 });
  dir = f.dir;
  folder = f.trained.folder;
  sha256 = f.trained.sha256;
  const base = f.conversations.slice(0, 10);
  // Unicode, and a conversation longer than maxLength (left-truncated on both sides).
  const odd: ChatMessage[] = [
    { role: 'system', content: 'Système: réponds en ✓ 数字 😀' },
    { role: 'user', content: 'Combien font 7 × 6 ? '.repeat(30) },
    { role: 'assistant', content: '#### 42' },
  ];
  convs = [...base, { id: 'odd', group: 'x', success: true, messages: odd, tools: null }];
  python = await scoreWithPython(folder, convs, join(dir, 'convs.jsonl'));
  rmodel = await RewardModel.load(folder, { sha256 });
}, 300_000);

afterAll(async () => {
  await rmodel?.dispose();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('RewardModel (onnxruntime-node) vs the engine (PyTorch)', () => {
  it('tokenizes every conversation exactly as the Python tokenizer does, truncation included', () => {
    expect(python.map((p) => p.id)).toEqual(convs.map((c) => c.id));
    convs.forEach((c, i) => expect(rmodel.encode(c)).toEqual(python[i]!.tokenIds));
    expect(python.at(-1)!.tokenIds).toHaveLength(256);
    expect(rmodel.render(convs[0]!)).toContain('<tool_call>');
  });

  it('scores within 1e-4 of PyTorch: alone, batched by concurrent calls, and with scoreBatch', async () => {
    const alone: number[] = [];
    for (const c of convs) alone.push(await rmodel.score(c));
    const concurrent = await Promise.all(convs.map((c) => rmodel.score(c)));
    const batch = await rmodel.scoreBatch(convs);
    for (const got of [alone, concurrent, batch]) {
      got.forEach((s, i) => {
        expect(Math.abs(s - python[i]!.torch)).toBeLessThanOrEqual(1e-4);
        expect(Math.abs(s - python[i]!.onnx)).toBeLessThanOrEqual(1e-4);
      });
    }
    // scoreEpisode scores the messages through the last assistant turn.
    const c = convs[0]!;
    const withTrailingTool = [...c.messages, { role: 'tool' as const, content: 'late', tool_call_id: 'x' }];
    expect(Math.abs((await rmodel.scoreEpisode(withTrailingTool, c.tools)) - alone[0]!)).toBeLessThanOrEqual(1e-6);
  });

  it('loads from a pointer, and refuses a changed folder or a wrong hash', async () => {
    expect(await RewardModel.fromPointer({ rewardModel: null })).toBeNull();
    const viaPointer = await RewardModel.fromPointer({ rewardModel: { folder, sha256, version: 1 } });
    expect(viaPointer?.version).toBe(1);
    await viaPointer?.dispose();
    await expect(RewardModel.fromPointer({ rewardModel: { folder } })).rejects.toThrow('not a reward-model pointer');
    await expect(RewardModel.load(folder, { sha256: '0'.repeat(64) })).rejects.toThrow('is not the expected');
    const copy = join(dir, 'tampered');
    await mkdir(copy);
    for (const name of await readdir(folder)) await copyFile(join(folder, name), join(copy, name));
    await writeFile(join(copy, 'chat_template.jinja'), '{{ messages }}');
    await expect(RewardModel.load(copy)).rejects.toThrow('differs from the manifest');
    await expect(RewardModel.load(join(dir, 'nowhere'))).rejects.toThrow('not a reward-model folder');
  });

  it('scores an ensemble pointer with every member (mean − k·std), and a plain pointer as an ensemble of one', async () => {
    const c = convs[1]!;
    const raw = await rmodel.scoreEpisode(c.messages, c.tools);
    const stats = rmodel.manifest.scoreStats;
    const one = await RewardEnsemble.fromPointer({ rewardModel: { folder, sha256 } });
    const two = await RewardEnsemble.fromPointer({
      rewardModel: { folder, sha256 },
      ensemble: {
        members: [
          { folder, sha256 },
          { folder, sha256 },
        ],
        stdPenalty: 2,
      },
    });
    try {
      expect(one?.members).toHaveLength(1);
      expect(two?.versions).toBe('v1+v1');
      const s = await two!.scoreEpisode(c.messages, c.tools);
      const expected = ensembleScore([raw, raw], [stats, stats], 2);
      expect(Math.abs(s.score - expected.score)).toBeLessThanOrEqual(1e-5);
      expect(s.std).toBeLessThanOrEqual(1e-5); // the same model twice agrees with itself
    } finally {
      await one?.dispose();
      await two?.dispose();
    }
    expect(await RewardEnsemble.fromPointer({ rewardModel: null })).toBeNull();
    await expect(
      RewardEnsemble.fromPointer({
        rewardModel: { folder, sha256 },
        ensemble: {
          members: [
            { folder, sha256 },
            { folder, sha256: '0'.repeat(64) },
          ],
          stdPenalty: 1,
        },
      }),
    ).rejects.toThrow('is not the expected');
  });
});
