// The OpenAI-compatible chat-completions request the swarm server accepts, with its limits
// (re-exported by swarm-protocol.ts).
import { z } from 'zod';
import { IdSchema, TextSchema } from './wire-text';

// ---------------------------------------------------------------------------------------------
// OpenAI-compatible chat completions
// ---------------------------------------------------------------------------------------------

/**
 * Size limits of one inference request, the same for every API (docs/request-limits.md): above
 * them the server answers 400 at once, before any engine work, so no request can hold the engine
 * long. Checked on the chat request every API's request becomes (src/shared/request-limits.ts).
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
  /** Levels of JSON nesting: of a request body, of a tool's parameters, of a tool call's arguments. */
  jsonDepth: 64,
  /** Content blocks, parts and input items of a Messages or Responses request together, before translation. */
  contentBlocks: 8192,
} as const;

const TextPartSchema = z.object({ type: z.literal('text'), text: TextSchema });
/** OpenAI content: a string, an array of text parts, or null. */
const ContentSchema = z.union([TextSchema, z.array(TextPartSchema), z.null()]).optional();

export const RequestToolCallSchema = z.object({
  id: IdSchema,
  type: z.literal('function').default('function'),
  function: z.object({ name: IdSchema, arguments: TextSchema }),
});

export const RequestMessageSchema = z
  .object({
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
    content: ContentSchema,
    tool_calls: z.array(RequestToolCallSchema).nullable().optional(),
    tool_call_id: IdSchema.optional(),
    name: IdSchema.optional(),
    /** An assistant turn's reasoning sent back (vLLM's field); rendered by templates that show reasoning. */
    reasoning_content: TextSchema.nullable().optional(),
  })
  .superRefine((m, ctx) => {
    // A tool message without tool_call_id is accepted (the engine renders it): envs answer an
    // unparseable call that way, since there is no call id to answer.
    if (m.tool_calls && m.tool_calls.length > 0 && m.role !== 'assistant')
      ctx.addIssue({ code: 'custom', message: 'only assistant messages carry tool_calls' });
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
 * accepted and ignored; `n > 1` and structured `response_format`s are refused by the server, and
 * so is a request over REQUEST_LIMITS (checked on the parsed request: `checkRequestLimits`).
 */
export const ChatCompletionRequestSchema = z.object({
  model: z.string().max(200).optional(),
  messages: z.array(RequestMessageSchema).min(1),
  tools: opt(z.array(RequestToolSchema)),
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
