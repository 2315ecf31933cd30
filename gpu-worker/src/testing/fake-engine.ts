// A fake engine for unit tests of the server (named as a fake; integration tests use the real
// one). Character-level "tokenizer" (token = code point + 10; 1 = <|im_start|>, 2 = <|im_end|> =
// eos), a Qwen-style template with spans, scripted replies (stop strings applied), streamed
// generations (one delta per token every `stepMs`) that a signal cancels, a weight version that
// train_step bumps, save/restore to a folder, a weight sync (a pull answers with the version the
// trainer pushed to its link; no tensors move), and `kill()` to simulate a crash.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatMessage, Tool } from '../../../src/shared/chat';
import type {
  EngineInfo,
  EngineMethod,
  EngineParams,
  EngineResult,
  GenerateRequest,
  Generation,
  Span,
} from '../../../src/shared/engine-protocol';
import { RemoteError } from '../../../src/shared/result';
import { formatToolCalls } from '../../../src/shared/tool-calls';
import { cancelledError, EngineDeadlineError, EngineExitedError, type CallOptions } from '../engine/engine-channel';
import type { EngineFactory, EngineHandle } from '../engine/engine-host';

const IM_START = 1;
const IM_END = 2;
const OFFSET = 10;

/** The weight version each sync link was last pushed (shared by every fake engine of a test). */
const pushedLinks = new Map<string, number>();

export function encode(text: string): number[] {
  const out: number[] = [];
  for (const piece of text.split(/(<\|im_start\|>|<\|im_end\|>)/)) {
    if (piece === '<|im_start|>') out.push(IM_START);
    else if (piece === '<|im_end|>') out.push(IM_END);
    else for (const ch of piece) out.push(ch.codePointAt(0)! + OFFSET);
  }
  return out;
}

export function decode(ids: readonly number[], skipSpecial = true): string {
  return ids
    .map((id) =>
      id === IM_START
        ? skipSpecial
          ? ''
          : '<|im_start|>'
        : id === IM_END
          ? skipSpecial
            ? ''
            : '<|im_end|>'
          : id >= OFFSET
            ? String.fromCodePoint(id - OFFSET)
            : '',
    )
    .join('');
}

export interface FakeEngineOptions {
  /** The reply to a conversation, given the rendered prompt text (before the generation prompt). */
  reply?: (prompt: string, request: GenerateRequest) => string;
  /** Simulated time per decoding step of a batch. */
  stepMs?: number;
  contextLength?: number;
  /**
   * Methods that never answer (an engine stuck in a long render or step, or one that lost the
   * request); `kill()` still ends them, and so does the call's deadline, as in the engine process.
   */
  hang?: readonly EngineMethod[];
  /** Calls that never answer, chosen by their params (e.g. one generation among working ones). */
  hangIf?: (method: EngineMethod, params: unknown) => boolean;
}

const GEN_PROMPT = '<|im_start|>assistant\n';

export class FakeEngine implements EngineHandle {
  alive = true;
  weightVersion = 0;
  readonly calls: { method: EngineMethod; params: unknown }[] = [];
  readonly generateBatches: number[] = [];
  /** Streamed generations stopped by their signal (a client that went away). */
  cancelledGenerates = 0;
  private pending = new Set<(err: Error) => void>();

  constructor(
    private readonly opts: FakeEngineOptions = {},
    private readonly onExit: (reason: string) => void = () => undefined,
  ) {}

  get pid(): number | undefined {
    return undefined;
  }

  info(): EngineInfo {
    return {
      loaded: true,
      model: '/fake/model',
      device: 'cpu',
      dtype: 'float32',
      params: 1,
      trainableParams: 1,
      vocabSize: 70000,
      contextLength: this.opts.contextLength ?? 4096,
      weightVersion: this.weightVersion,
      lora: false,
      threads: 1,
      torch: 'fake',
      transformers: 'fake',
      eosTokenIds: [IM_END],
      padTokenId: 0,
    };
  }

  render(
    messages: ChatMessage[],
    tools: Tool[] | null,
    addGenerationPrompt = true,
  ): { tokenIds: number[]; spans: Span[]; text: string } {
    const segments: { text: string; messageIndex: number; role: string }[] = [];
    let first = 0;
    if (tools && tools.length > 0) {
      const sys = messages[0]?.role === 'system' && messages[0].content ? `${messages[0].content}\n\n` : '';
      const body = `${sys}# Tools\n<tools>\n${tools.map((t) => JSON.stringify(t)).join('\n')}\n</tools>`;
      const own = messages[0]?.role === 'system';
      segments.push({
        text: `<|im_start|>system\n${body}<|im_end|>\n`,
        messageIndex: own ? 0 : -1,
        role: own ? 'system' : 'template',
      });
      if (own) first = 1;
    }
    messages.forEach((m, i) => {
      if (i < first) return;
      const body = m.role === 'assistant' ? formatToolCalls(m.content, m.tool_calls ?? []) : (m.content ?? '');
      segments.push({ text: `<|im_start|>${m.role}\n${body}<|im_end|>\n`, messageIndex: i, role: m.role });
    });
    if (addGenerationPrompt) segments.push({ text: GEN_PROMPT, messageIndex: -2, role: 'generation_prompt' });
    const tokenIds: number[] = [];
    const spans: Span[] = [];
    for (const seg of segments) {
      const ids = encode(seg.text);
      spans.push({
        messageIndex: seg.messageIndex,
        role: seg.role,
        start: tokenIds.length,
        end: tokenIds.length + ids.length,
      });
      tokenIds.push(...ids);
    }
    return { tokenIds, spans, text: segments.map((s) => s.text).join('') };
  }

  private generateOne(r: GenerateRequest): Generation {
    const prompt = decode(r.promptIds, false);
    const at = prompt.lastIndexOf(GEN_PROMPT);
    const before = at >= 0 ? prompt.slice(0, at) : prompt;
    const already = at >= 0 ? prompt.slice(at + GEN_PROMPT.length) : '';
    const reply = (this.opts.reply ?? (() => 'Hello from the fake engine.'))(before, r);
    const rest = [...encode(reply.startsWith(already) ? reply.slice(already.length) : ''), IM_END];
    const stops = new Set(r.stopIds ?? [IM_END]);
    const tokenIds: number[] = [];
    let finishReason: 'stop' | 'length' = 'length';
    let text = '';
    for (const t of rest) {
      if (tokenIds.length >= r.maxTokens) break;
      tokenIds.push(t);
      if (stops.has(t)) {
        finishReason = 'stop';
        break;
      }
      text = decode(tokenIds);
      const hit = (r.stop ?? []).map((s) => text.indexOf(s)).filter((i) => i >= 0);
      if (hit.length > 0) {
        text = text.slice(0, Math.min(...hit));
        return {
          tokenIds,
          logprobs: tokenIds.map((_, i) => -0.1 * ((i % 5) + 1)),
          finishReason: 'stop',
          text,
          promptTokens: r.promptIds.length,
          cachedTokens: 0,
        };
      }
    }
    return {
      tokenIds,
      logprobs: tokenIds.map((_, i) => -0.1 * ((i % 5) + 1)),
      finishReason,
      text: decode(tokenIds),
      promptTokens: r.promptIds.length,
      cachedTokens: 0,
    };
  }

  /** Streams one generation token by token (one delta per `stepMs`); the signal cancels it. */
  private async streamOne(r: Generation, index: number, opts: CallOptions): Promise<void> {
    const stepMs = this.opts.stepMs ?? 0;
    let shown = '';
    for (let i = 0; i < r.tokenIds.length; i++) {
      await new Promise((res) => setTimeout(res, stepMs));
      if (!this.alive) return;
      if (opts.signal?.aborted) {
        this.cancelledGenerates += 1;
        throw cancelledError();
      }
      const last = i === r.tokenIds.length - 1;
      const visible = last ? r.text : decode(r.tokenIds.slice(0, i + 1)).slice(0, r.text.length);
      const text = visible.startsWith(shown) ? visible.slice(shown.length) : '';
      shown += text;
      opts.onDelta?.({ index, tokenIds: [r.tokenIds[i]!], logprobs: [r.logprobs[i]!], text });
    }
  }

  call<M extends EngineMethod>(method: M, params: EngineParams[M], opts: CallOptions = {}): Promise<EngineResult<M>> {
    this.calls.push({ method, params });
    if (!this.alive) return Promise.reject(new EngineExitedError('engine process exited (fake kill)'));
    if (opts.signal?.aborted) return Promise.reject(cancelledError());
    return new Promise<EngineResult<M>>((resolve, reject) => {
      const fail = (err: Error): void => reject(err);
      this.pending.add(fail);
      if (this.opts.hang?.includes(method) || this.opts.hangIf?.(method, params)) {
        const ms = opts.deadlineMs;
        if (ms !== undefined)
          setTimeout(() => {
            if (this.pending.delete(fail)) reject(new EngineDeadlineError(method, ms));
          }, ms).unref();
        return;
      }
      const done = (value: unknown, delayMs = 0): void => {
        setTimeout(() => {
          this.pending.delete(fail);
          if (this.alive) resolve(value as EngineResult<M>);
        }, delayMs);
      };
      try {
        switch (method) {
          case 'info':
          case 'load':
            return done(this.info());
          case 'render': {
            const p = params as EngineParams['render'];
            return done(this.render(p.messages, p.tools ?? null, p.addGenerationPrompt ?? true));
          }
          case 'generate': {
            const p = params as EngineParams['generate'];
            const results = p.requests.map((r) => this.generateOne(r));
            this.generateBatches.push(p.requests.length);
            if (p.stream || opts.signal) {
              void Promise.all(
                results.map((r, i) =>
                  this.streamOne(r, i, p.stream ? opts : { ...(opts.signal ? { signal: opts.signal } : {}) }),
                ),
              ).then(
                () => done({ results, weightVersion: this.weightVersion }),
                (err: unknown) => {
                  this.pending.delete(fail);
                  reject(err instanceof Error ? err : new Error(String(err)));
                },
              );
              return;
            }
            const steps = Math.max(0, ...results.map((x) => x.tokenIds.length));
            return done({ results, weightVersion: this.weightVersion }, steps * (this.opts.stepMs ?? 0));
          }
          case 'cancel':
            return done({ cancelled: false });
          case 'configure':
            return done({
              mode: 'continuous',
              continuous: true,
              fallback: null,
              maxRows: 64,
              prefillTokens: 512,
              kvCacheBytes: 1 << 30,
              prefixCacheBytes: 1 << 29,
              blockTokens: 16,
            });
          case 'cache_stats':
            return done({ mode: 'continuous', batch: null, prefixCache: null });
          case 'decode': {
            const p = params as EngineParams['decode'];
            return done({ texts: p.sequences.map((s) => decode(s, p.skipSpecialTokens ?? true)) });
          }
          case 'train_step': {
            const p = params as EngineParams['train_step'];
            if (p.samples.length === 0)
              throw new RemoteError({ type: 'invalid_params', code: 'empty', message: 'no samples' });
            this.weightVersion += 1;
            const tokens = p.samples.reduce((n, s) => n + s.tokenIds.length, 0);
            const trained = p.samples.reduce((n, s) => n + s.lossMask.reduce<number>((a, b) => a + b, 0), 0);
            return done({
              loss: 0.1,
              pgLoss: 0.1,
              klLoss: 0,
              clipFraction: 0,
              approxKl: 0,
              entropy: 1,
              gradNorm: 0.5,
              tokens,
              trainedTokens: trained,
              microBatches: 1,
              seconds: 0.01,
              weightVersion: this.weightVersion,
            });
          }
          case 'save': {
            const p = params as EngineParams['save'];
            mkdirSync(p.path, { recursive: true });
            writeFileSync(join(p.path, 'fake.json'), JSON.stringify({ weightVersion: this.weightVersion }));
            return done({ path: p.path, weightVersion: this.weightVersion, bytes: 10 });
          }
          case 'restore': {
            const p = params as EngineParams['restore'];
            this.weightVersion = (
              JSON.parse(readFileSync(join(p.path, 'fake.json'), 'utf8')) as { weightVersion: number }
            ).weightVersion;
            return done(this.info());
          }
          case 'sync_open':
            return done({ host: '127.0.0.1', port: 1 });
          case 'sync_join': {
            const p = params as EngineParams['sync_join'];
            return done({ link: p.link, rank: p.rank });
          }
          case 'sync_push': {
            const p = params as EngineParams['sync_push'];
            for (const link of p.links) pushedLinks.set(link, this.weightVersion);
            const pushed = p.links.map((link) => ({ link, bytes: 8, buckets: 1, tensors: 1, ms: 0 }));
            return done({ weightVersion: this.weightVersion, ms: 0, pushed, failed: [] });
          }
          case 'sync_pull': {
            // Answered after the push the trainer makes in the same turn (the sync issues pulls first).
            const p = params as EngineParams['sync_pull'];
            setTimeout(() => {
              this.pending.delete(fail);
              const version = pushedLinks.get(p.link);
              if (version === undefined) return reject(new Error(`fake engine: nothing pushed to ${p.link}`));
              this.weightVersion = version;
              resolve({
                weightVersion: version,
                ms: 0,
                applyMs: 0,
                tensors: 1,
                bytes: 8,
                running: 0,
              } as EngineResult<M>);
            }, 0);
            return;
          }
          default:
            throw new RemoteError({
              type: 'unknown_method',
              code: 'unknown_method',
              message: `fake engine has no ${method}`,
            });
        }
      } catch (err) {
        this.pending.delete(fail);
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  }

  /** Simulates the process dying: in-flight calls fail, onExit fires. */
  kill(): void {
    if (!this.alive) return;
    this.alive = false;
    const err = new EngineExitedError('engine process exited (SIGKILL) [fake]');
    for (const fail of this.pending) fail(err);
    this.pending.clear();
    this.onExit('engine process exited (SIGKILL) [fake]');
  }

  async dispose(): Promise<void> {
    this.alive = false;
  }
}

/** A factory that makes fake engines and remembers them (the last one is the live one). */
export function fakeEngineFactory(opts: FakeEngineOptions = {}): { factory: EngineFactory; engines: FakeEngine[] } {
  const engines: FakeEngine[] = [];
  return {
    engines,
    factory: async (hooks) => {
      const e = new FakeEngine(opts, hooks.onExit);
      engines.push(e);
      return e;
    },
  };
}
