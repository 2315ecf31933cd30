// Benchmark `reward-model`, part 2: the trained folder scored in this one Node process with the SDK's
// RewardModel (onnxruntime-node on CPU): the largest |Node ONNX − PyTorch| over held-out conversations
// (PyTorch scores from the engine's `score` command; token ids compared too), and throughput —
// conversations/s one at a time (batch 1) and in batches of 16.
import { join } from 'node:path';
import { scoreWithPython } from '../src/node/services/reward-model-trainer';
import { RewardModel } from '../src/sdk/index';
import type { Conversation } from '../src/shared/reward-model';

export interface ScoringResult {
  nodeVsTorchMaxAbsDiff: number;
  tokenIdsEqual: boolean;
  parityConversations: number;
  perSecondB1: number;
  perSecondB16: number;
  msPerConversationB1: number;
  meanTokens: number;
}

export async function benchScoring(
  folder: string,
  sha256: string,
  convs: readonly Conversation[],
  scratchDir: string,
  threads: number,
): Promise<ScoringResult> {
  const rm = await RewardModel.load(folder, { sha256, threads, maxBatch: 16 });
  try {
    const parity = convs.slice(0, 64).map((c, i) => ({ ...c, id: `c${i}` }));
    const py = await scoreWithPython(folder, parity, join(scratchDir, 'parity.jsonl'));
    const node = await rm.scoreBatch(parity);
    const alone: number[] = [];
    for (const c of parity.slice(0, 16)) alone.push(await rm.score(c));
    let diff = 0;
    parity.forEach((_, i) => (diff = Math.max(diff, Math.abs(node[i]! - py[i]!.torch))));
    alone.forEach((s, i) => (diff = Math.max(diff, Math.abs(s - py[i]!.torch))));
    const tokenIdsEqual = parity.every((c, i) => JSON.stringify(rm.encode(c)) === JSON.stringify(py[i]!.tokenIds));

    // Throughput on the same conversations, cycled; a warm-up run first.
    const sample = Array.from({ length: 96 }, (_, i) => convs[i % convs.length]!);
    await rm.scoreBatch(sample.slice(0, 16));
    let t = performance.now();
    for (const c of sample.slice(0, 48)) await rm.score(c);
    const b1 = 48 / ((performance.now() - t) / 1000);
    t = performance.now();
    for (let i = 0; i < sample.length; i += 16) await rm.scoreBatch(sample.slice(i, i + 16));
    const b16 = sample.length / ((performance.now() - t) / 1000);
    const meanTokens = sample.reduce((s, c) => s + rm.encode(c).length, 0) / sample.length;
    return {
      nodeVsTorchMaxAbsDiff: diff,
      tokenIdsEqual,
      parityConversations: parity.length,
      perSecondB1: b1,
      perSecondB16: b16,
      msPerConversationB1: 1000 / b1,
      meanTokens,
    };
  } finally {
    await rm.dispose();
  }
}
