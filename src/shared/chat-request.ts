// The OpenAI-compatible chat-completions request the swarm server accepts, with its limits
// (re-exported by swarm-protocol.ts).
import { z } from 'zod';
import { IdSchema, TextSchema } from './wire-text';

// ---------------------------------------------------------------------------------------------
// OpenAI-compatible chat completions
// ---------------------------------------------------------------------------------------------

/**
 * Size limits of one inference request (docs/serving.md, "Request limits"): above them the server answers
 * 400 `invalid_request` at once, before any engine work, so no request can hold the engine long.
 */
export const REQUEST_LIMITS = {
  /** Messages in one conversation. */
  messages: 2048,
  /** Characters of one message's text (its content parts together, and each tool call's arguments). */
  messageChars: 1 << 20,
  /** Tool definitions. */
  tools: 128,
  /** Characters of one tool definition's JSON. */
  toolChars: 32 * 1024,
  /** Characters of all tool definitions' JSON together. */
  toolsChars: 256 * 1024,
} as const;

const tooLong = (what: string, limit: number): string =>
  `${what} is longer than this server's limit of ${limit} characters`;

const TextPartSchema = z.object({ type: z.literal('text'), text: TextSchema });
/** OpenAI content: a string, an array of text parts, or null. */
const ContentSchema = z.union([TextSchema, z.array(TextPartSchema), z.null()]).optional();

export const RequestToolCallSchema = z.object({
  id: IdSchema,
  type: z.literal('function').default('function'),
  function: z.object({
    name: IdSchema,
    arguments: TextSchema.max(
      REQUEST_LIMITS.messageChars,
      tooLong("a tool call's arguments", REQUEST_LIMITS.messageChars),
    ),
  }),
});

export const RequestMessageSchema = z
  .object({
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
    content: ContentSchema,
    tool_calls: z.array(RequestToolCallSchema).nullable().optional(),
    tool_call_id: IdSchema.optional(),
    name: IdSchema.optional(),
  })
  .superRefine((m, ctx) => {
    // A tool message without tool_call_id is accepted (the engine renders it): envs answer an
    // unparseable call that way, since there is no call id to answer.
    if (m.tool_calls && m.tool_calls.length > 0 && m.role !== 'assistant')
      ctx.addIssue({ code: 'custom', message: 'only assistant messages carry tool_calls' });
    const chars =
      typeof m.content === 'string' ? m.content.length : (m.content ?? []).reduce((n, p) => n + p.text.length, 0);
    if (chars > REQUEST_LIMITS.messageChars)
      ctx.addIssue({ code: 'custom', path: ['content'], message: tooLong('the message', REQUEST_LIMITS.messageChars) });
  });
export type RequestMessage = z.infer<typeof RequestMessageSchema>;

export const RequestToolSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: IdSchema,
    description: TextSchema.optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullable().optional(),
  }),
});

export const ToolChoiceSchema = z.union([
  z.enum(['auto', 'none', 'required']),
  z.object({ type: z.literal('function'), function: z.object({ name: IdSchema }) }),
]);
export type ToolChoice = z.infer<typeof ToolChoiceSchema>;

const opt = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/**
 * The chat-completion request. Unknown OpenAI fields (penalties, `user`, `logprobs`, …) are
 * accepted and ignored; `n > 1` and structured `response_format`s are refused by the server.
 */
export const ChatCompletionRequestSchema = z.object({
  model: z.string().max(200).optional(),
  messages: z
    .array(RequestMessageSchema)
    .min(1)
    .max(REQUEST_LIMITS.messages, `at most ${REQUEST_LIMITS.messages} messages per request`),
  tools: opt(
    z
      .array(RequestToolSchema)
      .max(REQUEST_LIMITS.tools, `at most ${REQUEST_LIMITS.tools} tools per request`)
      .superRefine((tools, ctx) => {
        let total = 0;
        tools.forEach((t, i) => {
          const chars = JSON.stringify(t).length;
          total += chars;
          if (chars > REQUEST_LIMITS.toolChars)
            ctx.addIssue({
              code: 'custom',
              path: [i],
              message: tooLong(`tool ${JSON.stringify(t.function.name.slice(0, 64))}`, REQUEST_LIMITS.toolChars),
            });
        });
        if (total > REQUEST_LIMITS.toolsChars)
          ctx.addIssue({ code: 'custom', message: tooLong('the tools together', REQUEST_LIMITS.toolsChars) });
      }),
  ),
  tool_choice: opt(ToolChoiceSchema),
  parallel_tool_calls: opt(z.boolean()),
  stream: opt(z.boolean()),
  stream_options: opt(z.object({ include_usage: opt(z.boolean()) })),
  max_tokens: opt(z.number().int().positive()),
  max_completion_tokens: opt(z.number().int().positive()),
  temperature: opt(z.number().min(0).max(2)),
  top_p: opt(z.number().gt(0).max(1)),
  stop: opt(z.union([TextSchema.min(1), z.array(TextSchema.min(1)).max(4)])),
  seed: opt(z.number().int()),
  n: opt(z.number().int().positive()),
  response_format: opt(z.object({ type: z.string() }).loose()),
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;

export interface ChatCompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** OpenAI's field: prompt tokens the engine took from its prefix KV cache instead of computing them. */
  prompt_tokens_details?: { cached_tokens: number };
}
