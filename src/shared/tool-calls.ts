// Hermes `<tool_call>` blocks: parse model text into OpenAI-shaped content + tool calls, and
// render them back exactly as the built-in chat template does (gpu-worker/engine/PROTOCOL.md).
import type { ChatMessage, ToolCall } from './chat';
import { parseStream, TOOL_CALL_CLOSE, TOOL_CALL_OPEN, type ParsedAssistantText } from './tool-call-stream';

export { TOOL_CALL_CLOSE, TOOL_CALL_OPEN, toolCallId, type ParsedAssistantText } from './tool-call-stream';

type JsonObject = Record<string, unknown>;

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function tryParseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    const value: unknown = JSON.parse(text);
    return { ok: true, value };
  } catch {
    return { ok: false };
  }
}

/**
 * JSON text with Python `json.dumps` default separators (`", "` and `": "`), as Hugging Face's
 * `tojson` filter writes it (ensure_ascii off, keys in insertion order). Strings and numbers are
 * escaped/printed by JSON.stringify; `undefined` and functions become `null`.
 */
export function pyJsonDumps(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'null';
  if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(', ')}]`;
  if (isJsonObject(value)) {
    const parts = Object.keys(value).map((k) => `${JSON.stringify(k)}: ${pyJsonDumps(value[k])}`);
    return `{${parts.join(', ')}}`;
  }
  return 'null';
}

/**
 * Splits model text into content and tool calls: the streaming parser (tool-call-stream.ts, where
 * the rules are) run over the whole text, so a non-streamed reply is exactly what a stream of the
 * same text delivers. Tolerates whitespace around the JSON, several blocks, and a missing
 * `</tool_call>` at the end of the text or before the next block; a block that is not a call stays
 * in the content and is counted in `malformed`. Arguments are the generated JSON without
 * insignificant whitespace; ids are `call_<idPrefix>_<i>` for the i-th call.
 */
export function parseToolCalls(text: string, idPrefix: string): ParsedAssistantText {
  return parseStream(text, idPrefix).parsed;
}

/** An assistant message from model text: what a server returns to the client. */
export function assistantMessageFromText(text: string, idPrefix: string): ChatMessage {
  const { content, toolCalls } = parseToolCalls(text, idPrefix);
  return toolCalls.length === 0
    ? { role: 'assistant', content }
    : { role: 'assistant', content, tool_calls: toolCalls };
}

/** The arguments as the engine renders them: a JSON object re-dumped; anything else (bad JSON, a
 *  non-object) verbatim, as `normalise_tool_call` keeps such strings raw. */
function renderArguments(argumentsJson: string): string {
  const parsed = tryParseJson(argumentsJson);
  return parsed.ok && isJsonObject(parsed.value) ? pyJsonDumps(parsed.value) : argumentsJson;
}

/** One `<tool_call>` block exactly as the chat template renders it. */
export function formatToolCallBlock(name: string, argumentsJson: string): string {
  return (
    `${TOOL_CALL_OPEN}\n{"name": ${JSON.stringify(name)}, "arguments": ` +
    `${renderArguments(argumentsJson)}}\n${TOOL_CALL_CLOSE}`
  );
}

/**
 * The body of an assistant turn as the template renders it: content, then `\n` if there is
 * content and at least one call, then the blocks joined by `\n`.
 */
export function formatToolCalls(content: string | null, toolCalls: readonly ToolCall[]): string {
  const blocks = toolCalls.map((tc) => formatToolCallBlock(tc.function.name, tc.function.arguments));
  if (blocks.length === 0) return content ?? '';
  return (content ? `${content}\n` : '') + blocks.join('\n');
}
