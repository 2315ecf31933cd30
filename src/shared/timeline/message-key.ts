// Canonical keys for text-level matching: two messages match when their keys are equal. A key
// covers role, content, tool calls (name + arguments, arguments compared as parsed JSON when both
// parse, else as raw text), tool_call_id and name — all of them, not content alone.
import type { ChatMessage, Tool } from '../chat';

/** JSON text with object keys sorted at every level, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    const items: unknown[] = value;
    return `[${items.map(canonicalJson).join(',')}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const entries: [string, unknown][] = Object.entries(value);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Tool-call arguments as canonical JSON when they parse, else tagged raw text. */
export function argumentsKey(args: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return `raw:${args}`;
  }
  return `json:${canonicalJson(parsed)}`;
}

/**
 * The text-level identity of a message. Not part of it: tool-call ids inside `tool_calls`
 * (servers mint them; `tool_call_id` of tool messages is compared), and the difference between
 * `content: null` and `content: ""`, or a missing and an empty `tool_calls` (templates render
 * them alike).
 */
export function messageKey(message: ChatMessage): string {
  const calls = (message.tool_calls ?? []).map((c) => [c.function.name, argumentsKey(c.function.arguments)]);
  return JSON.stringify([
    message.role,
    message.content ?? '',
    calls,
    message.tool_call_id ?? null,
    message.name ?? null,
  ]);
}

export function messagesEqual(a: ChatMessage, b: ChatMessage): boolean {
  return messageKey(a) === messageKey(b);
}

/** A tool list's identity: canonical JSON, with no tools and an empty list alike. */
export function toolsKey(tools: readonly Tool[] | null): string {
  return tools === null || tools.length === 0 ? '' : canonicalJson(tools);
}
