// The Anthropic Messages API request (`POST /v1/messages`) as this server accepts it: system,
// user/assistant messages of text / tool_use / tool_result blocks, custom tools, tool_choice,
// stop_sequences, sampling, streaming. Other block types, server tools, thinking, top_k, MCP
// servers and containers are refused by name with a 400; metadata and service_tier are ignored.
import { z } from 'zod';
import { IdSchema, REQUEST_LIMITS, TextSchema } from '../swarm-protocol';

const opt = <T extends z.ZodType>(schema: T) => schema.nullable().optional();
const CacheControl = opt(z.unknown());

export const TextBlockSchema = z.object({
  type: z.literal('text'),
  text: TextSchema,
  citations: opt(z.array(z.unknown())),
  cache_control: CacheControl,
});

export const ToolUseBlockSchema = z.object({
  type: z.literal('tool_use'),
  id: IdSchema,
  name: IdSchema,
  input: z.record(z.string(), z.unknown()),
  cache_control: CacheControl,
});

export const ToolResultBlockSchema = z.object({
  type: z.literal('tool_result'),
  tool_use_id: IdSchema,
  content: z.union([TextSchema, z.array(TextBlockSchema)]).optional(),
  is_error: opt(z.boolean()),
  cache_control: CacheControl,
});

/** A thinking block sent back (the server's own output; rendered if the template shows reasoning). */
export const ThinkingBlockSchema = z.object({
  type: z.literal('thinking'),
  thinking: TextSchema,
  signature: z.string().max(100_000).optional(),
});

export const ContentBlockSchema = z.discriminatedUnion('type', [
  TextBlockSchema,
  ToolUseBlockSchema,
  ToolResultBlockSchema,
  ThinkingBlockSchema,
]);
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

export const MessageParamSchema = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.union([TextSchema, z.array(ContentBlockSchema).max(REQUEST_LIMITS.contentBlocks)]),
});
export type MessageParam = z.infer<typeof MessageParamSchema>;

export const MessagesToolSchema = z.object({
  type: z.literal('custom').optional(),
  name: IdSchema,
  description: TextSchema.optional(),
  input_schema: z.record(z.string(), z.unknown()),
  cache_control: CacheControl,
});

export const MessagesToolChoiceSchema = z.object({
  type: z.enum(['auto', 'any', 'tool', 'none']),
  name: IdSchema.optional(),
  disable_parallel_tool_use: z.boolean().optional(),
});

export const MessagesRequestSchema = z.object({
  model: z.string().min(1).max(200),
  max_tokens: z.number().int().positive(),
  messages: z.array(MessageParamSchema).min(1).max(REQUEST_LIMITS.contentBlocks),
  system: z.union([TextSchema, z.array(TextBlockSchema)]).optional(),
  tools: z.array(MessagesToolSchema).max(REQUEST_LIMITS.tools).optional(),
  tool_choice: MessagesToolChoiceSchema.optional(),
  stop_sequences: z.array(TextSchema.min(1)).max(4).optional(),
  stream: z.boolean().optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  top_k: opt(z.number().int()),
  thinking: opt(z.object({ type: z.string(), budget_tokens: z.number().optional() }).loose()),
  container: opt(z.unknown()),
  mcp_servers: opt(z.array(z.unknown())),
  context_management: opt(z.unknown()),
  // Accepted and ignored.
  metadata: opt(z.object({ user_id: opt(z.string().max(500)) })),
  service_tier: opt(z.string().max(50)),
});
export type MessagesRequest = z.infer<typeof MessagesRequestSchema>;

export const MESSAGES_FIELDS: readonly string[] = Object.keys(MessagesRequestSchema.shape);
