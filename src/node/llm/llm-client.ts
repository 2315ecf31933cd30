// The one way the workbench talks to a researcher's own LLM (any OpenAI-compatible endpoint: a
// hosted API, vLLM, Ollama): the official `openai` package's chat completions with tools, every
// tool call's arguments parsed with the tool's zod schema, tokens counted (the server's usage, or
// an estimate when it reports none). Used by the research agent and by vibe training.
import OpenAI from 'openai';
import { z } from 'zod';
import type { LlmSettings } from '../../shared/task-draft';

export type LlmMessage = OpenAI.Chat.ChatCompletionMessageParam;

export interface LlmTool<A = unknown> {
  name: string;
  description: string;
  /** JSON schema of the arguments (what the LLM sees). */
  parameters: Record<string, unknown>;
  /** The same arguments as a zod schema (what is enforced). */
  args: z.ZodType<A>;
}

export interface ToolCallRequest {
  id: string;
  name: string;
  /** The raw arguments text, and its parse (an error message when it does not fit the schema). */
  raw: string;
  parsed: { ok: true; value: unknown } | { ok: false; error: string };
}

export interface LlmReply {
  content: string | null;
  calls: ToolCallRequest[];
  tokens: number;
  /** The assistant message to append to the conversation. */
  message: LlmMessage;
}

const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

export class LlmClient {
  private readonly openai: OpenAI;

  constructor(
    private readonly s: LlmSettings,
    o: { timeoutMs?: number; maxRetries?: number } = {},
  ) {
    this.openai = new OpenAI({
      baseURL: s.endpoint,
      apiKey: s.apiKey || 'not-needed',
      maxRetries: o.maxRetries ?? 2,
      timeout: o.timeoutMs ?? 120_000,
    });
  }

  get model(): string {
    return this.s.model;
  }

  async chat(messages: readonly LlmMessage[], tools: readonly LlmTool[], signal?: AbortSignal): Promise<LlmReply> {
    const res = await this.openai.chat.completions.create(
      {
        model: this.s.model,
        messages: [...messages],
        ...(tools.length > 0
          ? {
              tools: tools.map((t) => ({
                type: 'function' as const,
                function: { name: t.name, description: t.description, parameters: t.parameters },
              })),
              tool_choice: 'auto' as const,
            }
          : {}),
      },
      signal ? { signal } : {},
    );
    const choice = res.choices[0];
    if (!choice) throw new Error('the LLM returned no choices');
    const m = choice.message;
    const calls: ToolCallRequest[] = (m.tool_calls ?? []).flatMap((tc) => {
      if (tc.type !== 'function') return [];
      const tool = tools.find((t) => t.name === tc.function.name);
      return [
        {
          id: tc.id,
          name: tc.function.name,
          raw: tc.function.arguments,
          parsed: parseArgs(tool, tc.function.arguments),
        },
      ];
    });
    const tokens =
      res.usage?.total_tokens ?? estimateTokens(JSON.stringify(messages)) + estimateTokens(JSON.stringify(m));
    const message: LlmMessage =
      calls.length > 0
        ? {
            role: 'assistant',
            content: m.content,
            tool_calls: calls.map((c) => ({
              id: c.id,
              type: 'function' as const,
              function: { name: c.name, arguments: c.raw },
            })),
          }
        : { role: 'assistant', content: m.content ?? '' };
    return { content: m.content, calls, tokens, message };
  }
}

function parseArgs(tool: LlmTool | undefined, raw: string): ToolCallRequest['parsed'] {
  if (!tool) return { ok: false, error: 'no such tool' };
  let json: unknown;
  try {
    json = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (err) {
    return { ok: false, error: `the arguments are not JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  const parsed = tool.args.safeParse(json);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: z.prettifyError(parsed.error) };
}
