// OpenAI-style chat messages and tool schemas: the one message shape used by clients, the
// server, the engine's `render`, timelines and example tasks.
import { z } from 'zod';

export const ToolCallSchema = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({
    name: z.string(),
    /** JSON text, exactly as OpenAI sends it. */
    arguments: z.string(),
  }),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

export const ChatRoleSchema = z.enum(['system', 'user', 'assistant', 'tool']);
export type ChatRole = z.infer<typeof ChatRoleSchema>;

export const ChatMessageSchema = z.object({
  role: ChatRoleSchema,
  content: z.string().nullable(),
  tool_calls: z.array(ToolCallSchema).optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
  /** An assistant turn's reasoning (vLLM's and DeepSeek's `reasoning_content`); templates that show reasoning
   * read it. */
  reasoning_content: z.string().nullable().optional(),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

export const ToolSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string(),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type Tool = z.infer<typeof ToolSchema>;

export const system = (content: string): ChatMessage => ({ role: 'system', content });
export const user = (content: string): ChatMessage => ({ role: 'user', content });
export const toolResult = (toolCallId: string, content: string, name?: string): ChatMessage =>
  name === undefined
    ? { role: 'tool', content, tool_call_id: toolCallId }
    : { role: 'tool', content, tool_call_id: toolCallId, name };
