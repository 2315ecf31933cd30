// Splits one episode's calls (sorted by call order) into chains: a call extends the open chain
// whose last call's whole sequence (prompt + output) is a prefix of its own — by token ids or by
// messages — when agent and tools agree; otherwise it starts a new chain and the break's cause is
// recorded. Cost: O(length) hashing per call plus O(1) per open chain, then one verification per
// extension, so about linear in the total input tokens (no pairwise full comparisons).
import type { BreakCause, ChainBreak, MatchLevel, Timeline } from './types';
import {
  extendHash,
  prefixHashes,
  prefixMayMatch,
  rangesEqual,
  stringSymbol,
  type PrefixHashes,
  type SeqHash,
} from './hash';
import { messageKey, toolsKey } from './message-key';
import { outputBody, spansByMessage } from './linear-sample';

export interface Chains {
  /** Each chain's calls in call order; the last one's sequence holds all the others. */
  readonly chains: Timeline[][];
  readonly breaks: ChainBreak[];
}

/** One call with the keys the matcher needs; message keys are computed on first use. */
class Call {
  readonly tools: string;
  private keys: string[] | undefined;
  private ownOutputKey: string | undefined;

  constructor(readonly t: Timeline) {
    this.tools = toolsKey(t.tools);
  }

  get messageKeys(): string[] {
    this.keys ??= this.t.messages.map(messageKey);
    return this.keys;
  }

  get outputKey(): string {
    this.ownOutputKey ??= messageKey(this.t.output);
    return this.ownOutputKey;
  }

  /** True when this call's messages + output are a prefix of `other`'s messages (text level). */
  isTextPrefixOf(other: Call): boolean {
    const mine = this.messageKeys;
    const theirs = other.messageKeys;
    return (
      theirs.length > mine.length &&
      theirs[mine.length] === this.outputKey &&
      rangesEqual(mine, 0, theirs, 0, mine.length)
    );
  }

  /** True when this call's prompt + output tokens are a prefix of `other`'s prompt. */
  isTokenPrefixOf(other: Call): boolean {
    const { promptIds, outputIds } = this.t;
    return (
      rangesEqual(promptIds, 0, other.t.promptIds, 0, promptIds.length) &&
      rangesEqual(outputIds, 0, other.t.promptIds, promptIds.length, outputIds.length)
    );
  }
}

interface Tail {
  readonly chain: number;
  readonly call: Call;
  /** Hash of the sequence a successor's prompt must start with (tokens, or message keys). */
  readonly hash: SeqHash;
}

/** Prefix hashes of a call's prompt as the matcher sees it, and the hash of its whole sequence. */
function hashCall(call: Call, level: MatchLevel): { prefixes: PrefixHashes; whole: SeqHash } {
  const symbols = level === 'token' ? call.t.promptIds : call.messageKeys.map(stringSymbol);
  const prefixes = prefixHashes(symbols);
  const n = symbols.length;
  const prompt: SeqHash = { length: n, h1: prefixes.h1[n] ?? 0, h2: prefixes.h2[n] ?? 0 };
  const tail = level === 'token' ? call.t.outputIds : [stringSymbol(call.outputKey)];
  return { prefixes, whole: extendHash(prompt, tail) };
}

/** True when every call of `chain` (ending with `tail`) can be spliced into `b`'s prompt. */
function splicesInto(chain: readonly Timeline[], b: Timeline): boolean {
  const spans = spansByMessage(b);
  return chain.every((member) => outputBody(member, b, spans) !== null);
}

function extends_(tail: Tail, b: Call, level: MatchLevel, chain: readonly Timeline[]): boolean {
  if (tail.call.t.agent !== b.t.agent || tail.call.tools !== b.tools) return false;
  if (level === 'token') return tail.call.isTokenPrefixOf(b);
  return tail.call.isTextPrefixOf(b) && splicesInto(chain, b.t);
}

/** True when `call` had reasoning — in its output or an earlier assistant turn — that `b`'s prompt renders
 * shorter than it was sampled: the template dropped it (the span of the echoed output is shorter). */
function droppedReasoning(call: Call, b: Call): boolean {
  const t = call.t;
  const hadReasoning = [t.output, ...t.messages].some((m) => m.role === 'assistant' && !!m.reasoning_content);
  if (!hadReasoning) return false;
  const echoed = b.t.promptSpans.find((s) => s.messageIndex === t.messages.length);
  return echoed !== undefined && echoed.end - echoed.start < t.outputIds.length;
}

/** A text match whose tokens do not align: the template dropped reasoning, or other drift. */
function driftCause(call: Call, b: Call): BreakCause {
  return droppedReasoning(call, b) ? 'template_dropped_reasoning' : 'token_drift';
}

/**
 * Why `b` extends no chain. Precedence: a chain it would extend but for the agent →
 * `different_agent`; but for the tools → `different_tools`; a text match that cannot be aligned
 * token-wise → `token_drift`; no chain of its agent yet → `different_agent`. Otherwise, against
 * the latest chain of its agent: other tools → `different_tools`; its messages + output are a
 * prefix of b's messages (so only the tokens differ) → `token_drift`; else `rewritten_history`.
 * A `token_drift` where the earlier call's reasoning renders shorter in b's prompt than it was sampled
 * is named `template_dropped_reasoning`.
 */
function breakCause(b: Call, matches: readonly Tail[], tails: readonly Tail[]): BreakCause {
  if (matches.some((m) => m.call.t.agent !== b.t.agent)) return 'different_agent';
  if (matches.some((m) => m.call.tools !== b.tools)) return 'different_tools';
  if (matches.length > 0) return driftCause(matches[0]!.call, b);
  let latest: Call | undefined;
  for (const { call } of tails) {
    if (call.t.agent === b.t.agent && (latest === undefined || call.t.callIndex >= latest.t.callIndex)) latest = call;
  }
  if (latest === undefined) return 'different_agent';
  if (latest.tools !== b.tools) return 'different_tools';
  return latest.isTextPrefixOf(b) ? driftCause(latest, b) : 'rewritten_history';
}

/** Splits one episode's calls, already sorted in call order, into chains. */
export function buildChains(calls: readonly Timeline[], level: MatchLevel): Chains {
  const chains: Timeline[][] = [];
  const tails: Tail[] = [];
  const breaks: ChainBreak[] = [];
  for (const t of calls) {
    const b = new Call(t);
    const { prefixes, whole } = hashCall(b, level);
    // Hash hits only, longest sequence first, then the latest call.
    const matches = tails
      .filter((tail) => prefixMayMatch(prefixes, tail.hash))
      .sort((x, y) => y.hash.length - x.hash.length || y.call.t.callIndex - x.call.t.callIndex);
    const target = matches.find((tail) => extends_(tail, b, level, chains[tail.chain] ?? []));
    if (target !== undefined) {
      chains[target.chain]?.push(t);
      tails[target.chain] = { chain: target.chain, call: b, hash: whole };
      continue;
    }
    if (chains.length > 0)
      breaks.push({ episodeId: t.episodeId, timelineId: t.id, cause: breakCause(b, matches, tails) });
    tails.push({ chain: chains.length, call: b, hash: whole });
    chains.push([t]);
  }
  return { chains, breaks };
}
