// The OpenAI Responses API request (`POST /v1/responses`) as this server accepts it: input items
// (messages, function_call, function_call_output), instructions, function tools, tool_choice,
// streaming, previous_response_id. Every other field is either accepted and ignored (listed in
// IGNORED_FIELDS: they change nothing a local policy server does) or refused by name with a 400.
import { z } from 'zod';
import { IdSchema, REQUEST_LIMITS, TextSchema } from '../swarm-protocol';

const opt = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/** Text content parts of input messages; other part types (images, files, audio) are refused. */
const TextPartSchema = z
  .object({
    type: z.enum(['input_text', 'output_text', 'text']),
    text: TextSchema,
    annotations: z.array(z.unknown()).optional(),
    logprobs: z.array(z.unknown()).optional(),
  })
  .loose();

const MessageContentSchema = z.union([TextSchema, z.array(TextPartSchema)]);

export const MessageItemSchema = z.object({
  type: z.literal('message').optional(),
  id: z.string().max(300).optional(),
  status: z.string().max(40).optional(),
  role: z.enum(['user', 'system', 'developer', 'assistant']),
  content: MessageContentSchema,
});

export const FunctionCallItemSchema = z.object({
  type: z.literal('function_call'),
  id: z.string().max(300).optional(),
  status: z.string().max(40).optional(),
  call_id: IdSchema,
  name: IdSchema,
  arguments: TextSchema,
});

export const FunctionCallOutputItemSchema = z.object({
  type: z.literal('function_call_output'),
  id: z.string().max(300).optional(),
  status: z.string().max(40).optional(),
  call_id: IdSchema,
  output: MessageContentSchema,
});

/** A reasoning item sent back (the server's own output item; its text is rendered if the template shows reasoning). */
export const ReasoningItemSchema = z.object({
  type: z.literal('reasoning'),
  id: z.string().max(300).optional(),
  status: z.string().max(40).optional(),
  summary: z.array(z.object({ type: z.string().max(40), text: TextSchema })).max(REQUEST_LIMITS.contentBlocks),
  content: z
    .array(z.object({ type: z.string().max(40), text: TextSchema }))
    .max(REQUEST_LIMITS.contentBlocks)
    .nullish(),
  encrypted_content: z.string().nullish(),
});

export const InputItemSchema = z.union([
  MessageItemSchema,
  FunctionCallItemSchema,
  FunctionCallOutputItemSchema,
  ReasoningItemSchema,
]);
export type InputItem = z.infer<typeof InputItemSchema>;

export const FunctionToolSchema = z.object({
  type: z.literal('function'),
  name: IdSchema,
  description: opt(TextSchema),
  parameters: opt(z.record(z.string(), z.unknown())),
  strict: opt(z.boolean()),
});

export const ResponsesToolChoiceSchema = z.union([
  z.enum(['auto', 'none', 'required']),
  z.object({ type: z.literal('function'), name: IdSchema }),
]);

export const ResponsesRequestSchema = z.object({
  model: z.string().max(200).optional(),
  input: z.union([TextSchema, z.array(InputItemSchema).min(1).max(REQUEST_LIMITS.contentBlocks)]),
  instructions: opt(TextSchema),
  tools: opt(z.array(FunctionToolSchema).max(REQUEST_LIMITS.tools)),
  tool_choice: opt(ResponsesToolChoiceSchema),
  parallel_tool_calls: opt(z.boolean()),
  stream: opt(z.boolean()),
  max_output_tokens: opt(z.number().int().positive()),
  temperature: opt(z.number().min(0).max(2)),
  top_p: opt(z.number().gt(0).max(1)),
  previous_response_id: opt(z.string().max(300)),
  metadata: opt(z.record(z.string().max(64), z.string().max(512))),
  text: opt(z.object({ format: opt(z.object({ type: z.string() }).loose()), verbosity: opt(z.string()) })),
  truncation: opt(z.enum(['disabled', 'auto'])),
  include: opt(z.array(z.string().max(200)).max(32)),
  reasoning: opt(z.object({ effort: opt(z.string()), summary: opt(z.string()), generate_summary: opt(z.string()) })),
  top_logprobs: opt(z.number().int().min(0)),
  background: opt(z.boolean()),
  conversation: opt(z.unknown()),
  prompt: opt(z.unknown()),
  max_tool_calls: opt(z.number().int()),
  context_management: opt(z.unknown()),
  // Accepted and ignored (IGNORED_FIELDS).
  store: opt(z.boolean()),
  user: opt(z.string().max(500)),
  safety_identifier: opt(z.string().max(500)),
  prompt_cache_key: opt(z.string().max(500)),
  prompt_cache_retention: opt(z.string().max(50)),
  prompt_cache_options: opt(z.unknown()),
  service_tier: opt(z.string().max(50)),
  stream_options: opt(z.object({ include_obfuscation: opt(z.boolean()) })),
});
export type ResponsesRequest = z.infer<typeof ResponsesRequestSchema>;

/** Fields accepted without effect: storage, caching, tiers and end-user ids mean nothing here. */
export const IGNORED_FIELDS = [
  'store',
  'user',
  'safety_identifier',
  'prompt_cache_key',
  'prompt_cache_retention',
  'prompt_cache_options',
  'service_tier',
  'stream_options',
  'metadata',
] as const;

export const RESPONSES_FIELDS: readonly string[] = Object.keys(ResponsesRequestSchema.shape);

/** `include` values that ask for nothing this server would leave out. */
export const HARMLESS_INCLUDES = ['reasoning.encrypted_content'];
