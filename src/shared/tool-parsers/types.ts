// The reply-parser contract every model family implements: fed the generated text as it comes, a
// parser emits content, reasoning and tool-call events the way OpenAI-compatible servers stream
// them (a call's id and name as soon as the name is known, then its arguments incrementally), and
// at the end the parsed reply. A non-streamed reply is the same parser run over the whole text.
import type { ToolCall } from '../chat';
import type { StreamEvent } from '../tool-call-stream';

/** Stream events, reasoning text included (Qwen3 `<think>`, Harmony's analysis channel). */
export type ReplyEvent = StreamEvent;

export interface ParsedReply {
  /** Text outside tool calls and reasoning; null when empty. */
  content: string | null;
  /** The reasoning the model wrote before (or between) its answer; null when none. */
  reasoning: string | null;
  toolCalls: ToolCall[];
  /** Call blocks that were not well-formed (left as text, or closed early). */
  malformed: number;
}

export interface ReplyParser {
  /** Feeds newly generated text; returns the events it makes sendable. */
  push(delta: string): ReplyEvent[];
  /** The text has ended: returns the last events. */
  finish(): ReplyEvent[];
  /** The parsed reply (complete once `finish` was called). */
  result(): ParsedReply;
}

/** Tool-call part of a reply parser (content and calls; reasoning is split off before it). */
export interface ToolParser {
  push(delta: string): StreamEvent[];
  finish(): StreamEvent[];
  result(): { content: string | null; toolCalls: ToolCall[]; malformed: number };
}

/** Length of the longest suffix of `text` that is a proper prefix of one of `tags`. */
export function partialTagLength(text: string, tags: readonly string[]): number {
  const longest = Math.max(0, ...tags.map((t) => t.length));
  for (let k = Math.min(text.length, longest - 1); k > 0; k--) {
    const tail = text.slice(text.length - k);
    if (tags.some((t) => t.startsWith(tail))) return k;
  }
  return 0;
}

/** The first occurrence of any of `tags` in `text` at or after `from`. */
export function firstTag(text: string, tags: readonly string[], from = 0): { at: number; tag: string } | null {
  let best: { at: number; tag: string } | null = null;
  for (const tag of tags) {
    const at = text.indexOf(tag, from);
    if (at >= 0 && (best === null || at < best.at)) best = { at, tag };
  }
  return best;
}
