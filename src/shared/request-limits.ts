// One set of request limits for every inference API (issue #19 §3): chat completions, Responses
// and Messages all become one chat request, and `checkRequestLimits` checks REQUEST_LIMITS on it —
// messages, characters, tools, JSON nesting — so no API lets through what another refuses. The
// work before that is bounded too: the body's nesting before it is parsed (`checkBodyDepth`), the
// counts of a raw body before it is validated or translated (`checkChatBody`,
// `checkContentBlocks`). Each refusal is a 400 naming the field. Pure.
import { prop, refuse } from './api-refusals';
import { REQUEST_LIMITS, type ChatCompletionRequest } from './chat-request';
import { formatJsonPath, tooDeepAt } from './json-depth';
import type { SwarmError } from './swarm-error';

const L = REQUEST_LIMITS;

const tooLong = (field: string, what: string, limit: number): SwarmError =>
  refuse('invalid_request', `${field}: ${what} is longer than this server's limit of ${limit} characters`);

const tooDeep = (field: string, at: string | null): SwarmError =>
  refuse(
    'too_deep',
    `${field} nests deeper than ${L.jsonDepth} levels${at ? ` (at ${at})` : ''}; this server accepts at most ` +
      `${L.jsonDepth} levels of JSON nesting`,
  );

/** A request body's text: refused (400 naming the field) when it nests deeper than the limit. */
export function checkBodyDepth(text: string): void {
  const path = tooDeepAt(text, L.jsonDepth);
  if (path) throw tooDeep(path.length > 0 ? formatJsonPath(path) : 'the request body', null);
}

/** A tool call's arguments (a JSON text): refused when too long or too deep. */
export function checkArguments(field: string, args: string): void {
  if (args.length > L.messageChars) throw tooLong(field, "a tool call's arguments", L.messageChars);
  const path = tooDeepAt(args, L.jsonDepth);
  if (path) throw tooDeep(field, formatJsonPath(path));
}

/**
 * Bounds a translation before it runs: `count` content blocks, parts and items of a Messages or
 * Responses request (`what` says which) may become as many chat messages.
 */
export function checkContentBlocks(count: number, what: string): void {
  if (count > L.contentBlocks)
    throw refuse(
      'invalid_request',
      `${what}: ${count} content blocks and items in one request; this server accepts at most ${L.contentBlocks} ` +
        `(and at most ${L.messages} messages once translated)`,
    );
}

const tooManyMessages = (n: number): SwarmError =>
  refuse(
    'invalid_request',
    `messages: at most ${L.messages} messages per request; this one has ${n} (counted as chat messages)`,
  );
const tooManyTools = (n: number): SwarmError =>
  refuse('invalid_request', `tools: at most ${L.tools} tools per request; this one has ${n}`);

/**
 * A raw chat-completions body: too many messages or tools are refused before they are validated
 * one by one. Returns the body, to be validated next.
 */
export function checkChatBody(body: unknown): unknown {
  const messages = prop(body, 'messages');
  if (Array.isArray(messages) && messages.length > L.messages) throw tooManyMessages(messages.length);
  const tools = prop(body, 'tools');
  if (Array.isArray(tools) && tools.length > L.tools) throw tooManyTools(tools.length);
  return body;
}

const textLength = (content: ChatCompletionRequest['messages'][number]['content']): number =>
  typeof content === 'string' ? content.length : (content ?? []).reduce((n, p) => n + p.text.length, 0);

function checkMessages(messages: ChatCompletionRequest['messages']): void {
  if (messages.length > L.messages) throw tooManyMessages(messages.length);
  messages.forEach((m, i) => {
    if (textLength(m.content) > L.messageChars) throw tooLong(`messages[${i}]`, 'the message', L.messageChars);
    (m.tool_calls ?? []).forEach((c, j) =>
      checkArguments(`messages[${i}].tool_calls[${j}].function.arguments`, c.function.arguments),
    );
  });
}

function checkTools(tools: NonNullable<ChatCompletionRequest['tools']>): void {
  if (tools.length > L.tools) throw tooManyTools(tools.length);
  let total = 0;
  tools.forEach((t, i) => {
    const json = JSON.stringify(t);
    total += json.length;
    if (json.length > L.toolChars)
      throw tooLong(`tools[${i}]`, `tool ${JSON.stringify(t.function.name.slice(0, 64))}`, L.toolChars);
    const path = t.function.parameters ? tooDeepAt(JSON.stringify(t.function.parameters), L.jsonDepth) : null;
    if (path) throw tooDeep(`tools[${i}].function.parameters`, formatJsonPath(path));
  });
  if (total > L.toolsChars) throw tooLong('tools', 'the tools together', L.toolsChars);
}

/** REQUEST_LIMITS on a chat request (of any API, after translation); throws the 400 that names the field. */
export function checkRequestLimits(req: ChatCompletionRequest): void {
  checkMessages(req.messages);
  if (req.tools) checkTools(req.tools);
}
