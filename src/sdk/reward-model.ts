// The reward-model scorer of the SDK: loads a reward-model folder (ONNX graph + tokenizer + chat
// template, see reward-model-folder.ts) and scores conversations on CPU with onnxruntime-node, batched:
// `score` calls made concurrently (the episodes of a task group ending together) share one ONNX run.
//
//   const rm = await RewardModel.load(folder);             // or RewardModel.fromPointer(pointerJson)
//   const score = await rm.scoreEpisode(history, tools);    // a logit: higher is better
//
// onnxruntime-node and the text side (@huggingface/tokenizers and @huggingface/jinja, reward-model-text.ts)
// are imported when a model is loaded, so clients that never score do not load them at start (the client
// runner bundles with code splitting, so a dynamic import stays lazy in a client's bundle too).
import { resolve } from 'node:path';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import {
  episodeConversation,
  RewardModelPointerSchema,
  sigmoid,
  type Conversation,
  type RewardModelManifest,
  type RewardModelRef,
} from '../shared/reward-model';
import type { ChatMessage, Tool } from '../shared/chat';
import { MicroBatcher } from './micro-batcher';
import { readRewardModelFolder } from './reward-model-folder';
import type { ConversationEncoder } from './reward-model-text';

export interface RewardModelOptions {
  /** The expected SHA-256 of the folder's manifest; loading fails when it differs. */
  sha256?: string;
  /** onnxruntime intra-op threads (default 1: a client process is one of many). */
  threads?: number;
  /** Conversations per ONNX run (default 16). */
  maxBatch?: number;
}

type Ort = typeof import('onnxruntime-node');

export class RewardModel {
  private readonly batcher: MicroBatcher<number[], number>;
  private disposed = false;

  private constructor(
    readonly folder: string,
    readonly manifest: RewardModelManifest,
    /** SHA-256 of the manifest: the folder's identity. */
    readonly sha256: string,
    private readonly encoder: ConversationEncoder,
    private readonly ort: Ort,
    private readonly session: InferenceSession,
    readonly maxBatch: number,
  ) {
    this.batcher = new MicroBatcher((seqs) => this.run(seqs), maxBatch);
  }

  static async load(folder: string, o: RewardModelOptions = {}): Promise<RewardModel> {
    const files = await readRewardModelFolder(resolve(folder), o.sha256);
    const text = await import('./reward-model-text');
    const encoder = new text.ConversationEncoder(
      files.tokenizerJson,
      files.tokenizerConfig,
      files.chatTemplate,
      files.manifest.maxLength,
    );
    const pad = files.manifest.padTokenId;
    if (pad >= encoder.vocabSize)
      throw new Error(
        `${files.folder}: padTokenId ${pad} is not a token of the tokenizer (its vocabulary has ` +
          `${encoder.vocabSize} tokens)`,
      );
    const ort = await import('onnxruntime-node');
    const threads = o.threads ?? 1;
    const session = await ort.InferenceSession.create(files.onnx, {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
      executionProviders: ['cpu'],
    });
    const { inputs, output } = files.manifest.onnx;
    for (const name of inputs)
      if (!session.inputNames.includes(name))
        throw new Error(
          `${files.folder}: the ONNX graph has no input ${name} (it has ${session.inputNames.join(', ')})`,
        );
    if (!session.outputNames.includes(output))
      throw new Error(`${files.folder}: the ONNX graph has no output ${output}`);
    return new RewardModel(files.folder, files.manifest, files.sha256, encoder, ort, session, o.maxBatch ?? 16);
  }

  /**
   * The model a pointer file (`{"rewardModel": {folder, sha256} | null}`) names, checked against its hash; null when
   * none is deployed.
   */
  static async fromPointer(pointer: unknown, o: Omit<RewardModelOptions, 'sha256'> = {}): Promise<RewardModel | null> {
    const parsed = RewardModelPointerSchema.safeParse(pointer);
    if (!parsed.success)
      throw new Error(
        'not a reward-model pointer ({"rewardModel": {"folder", "sha256"} | null}): ' +
          `${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
    const ref: RewardModelRef | null = parsed.data.rewardModel;
    return ref ? RewardModel.load(ref.folder, { ...o, sha256: ref.sha256 }) : null;
  }

  get version(): number {
    return this.manifest.version;
  }

  /** The rendered text of a conversation (what the model reads, before truncation). */
  render(c: Conversation): string {
    return this.encoder.render(c);
  }

  /** The token ids the model scores. */
  encode(c: Conversation): number[] {
    return this.encoder.encode(c);
  }

  /** One conversation's score; concurrent calls are batched together. */
  score(c: Conversation): Promise<number> {
    if (this.disposed) return Promise.reject(new Error('the reward model is disposed'));
    let ids: number[];
    try {
      ids = this.encode(c);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err))); // e.g. the template's render budget
    }
    return this.batcher.submit(ids);
  }

  /** An episode's score: its messages through the last assistant turn (see episodeConversation). */
  scoreEpisode(messages: readonly ChatMessage[], tools?: readonly Tool[] | null): Promise<number> {
    const conv = episodeConversation(messages);
    if (conv.length === 0) return Promise.reject(new Error('the episode has no assistant turn to score'));
    return this.score({ messages: conv, tools: tools ? [...tools] : null });
  }

  /** Scores many conversations, in ONNX runs of up to maxBatch (similar lengths together), in order. */
  async scoreBatch(cs: readonly Conversation[]): Promise<number[]> {
    if (this.disposed) throw new Error('the reward model is disposed');
    const seqs = cs.map((c) => this.encode(c));
    const order = seqs.map((_, i) => i).sort((a, b) => seqs[a]!.length - seqs[b]!.length);
    const out = new Array<number>(seqs.length);
    for (let i = 0; i < order.length; i += this.maxBatch) {
      const chunk = order.slice(i, i + this.maxBatch);
      const scores = await this.run(chunk.map((j) => seqs[j]!));
      chunk.forEach((j, k) => (out[j] = scores[k]!));
    }
    return out;
  }

  /** σ(score): P(good) for a pointwise-trained model. */
  probability(score: number): number {
    return sigmoid(score);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.batcher.close('the reward model is disposed');
    await this.session.release();
  }

  /** One ONNX run over right-padded token sequences. */
  private async run(seqs: number[][]): Promise<number[]> {
    if (seqs.length === 0) return [];
    const width = Math.max(1, ...seqs.map((s) => s.length));
    const ids = new BigInt64Array(seqs.length * width).fill(BigInt(this.manifest.padTokenId));
    const mask = new BigInt64Array(seqs.length * width);
    seqs.forEach((s, row) => {
      s.forEach((id, col) => {
        ids[row * width + col] = BigInt(id);
        mask[row * width + col] = 1n;
      });
    });
    const [idsName, maskName] = this.manifest.onnx.inputs;
    const feeds: Record<string, Tensor> = {
      [idsName]: new this.ort.Tensor('int64', ids, [seqs.length, width]),
      [maskName]: new this.ort.Tensor('int64', mask, [seqs.length, width]),
    };
    const result = await this.session.run(feeds);
    const scores = result[this.manifest.onnx.output];
    if (!scores || !(scores.data instanceof Float32Array) || scores.data.length !== seqs.length) {
      throw new Error(
        `the ONNX graph returned ${scores ? `${scores.type} ${JSON.stringify(scores.dims)}` : 'nothing'} for ` +
          `${seqs.length} conversations`,
      );
    }
    return Array.from(scores.data);
  }
}
