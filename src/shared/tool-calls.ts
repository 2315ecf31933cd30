// Hermes `<tool_call>` blocks: parse model text into OpenAI-shaped content + tool calls, and
// render them back exactly as the built-in chat template does (gpu-worker/engine/PROTOCOL.md).
import type { ChatMessage, ToolCall } from './chat';

export const TOOL_CALL_OPEN = '<tool_call>';
export const TOOL_CALL_CLOSE = '</tool_call>';

export interface ParsedAssistantText {
  /** Text outside well-formed blocks (malformed blocks stay in it verbatim); null when empty. */
  content: string | null;
  toolCalls: ToolCall[];
  /** Blocks that could not be read as a call (bad JSON, no name, non-object arguments, unclosed). */
  malformed: number;
}

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

/** Reads one block body; null when it is not a well-formed call. */
function parseBlockBody(body: string): { name: string; args: JsonObject } | null {
  const parsed = tryParseJson(body.trim());
  if (!parsed.ok || !isJsonObject(parsed.value)) return null;
  const { name } = parsed.value;
  const args = parsed.value['arguments'] ?? {};
  if (typeof name !== 'string' || name.length === 0 || !isJsonObject(args)) return null;
  return { name, args };
}

/** The id of the i-th call parsed with a given prefix. */
export const toolCallId = (idPrefix: string, index: number): string => `call_${idPrefix}_${index}`;

/**
 * Splits model text into content and tool calls. Tolerates whitespace around the JSON, several
 * blocks, and a missing `</tool_call>` at the very end of the text. A block cut short by another
 * `<tool_call>` or one that does not parse is left in the content and counted in `malformed`.
 * Arguments are re-serialised with JSON.stringify (OpenAI's compact shape); ids are
 * `call_<idPrefix>_<i>` for the i-th well-formed call.
 */
export function parseToolCalls(text: string, idPrefix: string): ParsedAssistantText {
  const toolCalls: ToolCall[] = [];
  const runs: string[] = [];
  let current = '';
  let malformed = 0;
  let pos = 0;
  for (;;) {
    const start = text.indexOf(TOOL_CALL_OPEN, pos);
    if (start < 0) {
      current += text.slice(pos);
      break;
    }
    current += text.slice(pos, start);
    const bodyStart = start + TOOL_CALL_OPEN.length;
    const close = text.indexOf(TOOL_CALL_CLOSE, bodyStart);
    const nextOpen = text.indexOf(TOOL_CALL_OPEN, bodyStart);
    let bodyEnd: number;
    let blockEnd: number;
    let cutShort = false;
    if (close >= 0 && (nextOpen < 0 || close < nextOpen)) {
      bodyEnd = close;
      blockEnd = close + TOOL_CALL_CLOSE.length;
    } else if (nextOpen >= 0) {
      bodyEnd = blockEnd = nextOpen;
      cutShort = true;
    } else {
      bodyEnd = blockEnd = text.length;
    }
    const call = cutShort ? null : parseBlockBody(text.slice(bodyStart, bodyEnd));
    if (call === null) {
      malformed++;
      current += text.slice(start, blockEnd);
    } else {
      runs.push(current);
      current = '';
      toolCalls.push({
        id: toolCallId(idPrefix, toolCalls.length),
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.args) },
      });
    }
    pos = blockEnd;
  }
  runs.push(current);
  if (toolCalls.length === 0) return { content: text === '' ? null : text, toolCalls, malformed };
  const content = runs.map((r) => r.trim()).filter((r) => r !== '').join('\n');
  return { content: content === '' ? null : content, toolCalls, malformed };
}

/** An assistant message from model text: what a server returns to the client. */
export function assistantMessageFromText(text: string, idPrefix: string): ChatMessage {
  const { content, toolCalls } = parseToolCalls(text, idPrefix);
  return toolCalls.length === 0 ? { role: 'assistant', content } : { role: 'assistant', content, tool_calls: toolCalls };
}

/** The arguments as the engine renders them: a JSON object re-dumped; anything else (bad JSON, a
 *  non-object) verbatim, as `normalise_tool_call` keeps such strings raw. */
function renderArguments(argumentsJson: string): string {
  const parsed = tryParseJson(argumentsJson);
  return parsed.ok && isJsonObject(parsed.value) ? pyJsonDumps(parsed.value) : argumentsJson;
}

/** One `<tool_call>` block exactly as the chat template renders it. */
export function formatToolCallBlock(name: string, argumentsJson: string): string {
  return `${TOOL_CALL_OPEN}\n{"name": ${JSON.stringify(name)}, "arguments": ${renderArguments(argumentsJson)}}\n${TOOL_CALL_CLOSE}`;
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
