// A runEpisode policy that calls an OpenAI-compatible `/chat/completions` with plain `fetch` — no
// SDK — and parses the answer with the shared zod schemas.
import { z } from 'zod';
import { ChatMessageSchema, type ChatMessage, type Tool } from '../../src/shared/chat';
import type { Policy } from '../../src/shared/episode';

const CompletionSchema = z.object({ choices: z.array(z.object({ message: ChatMessageSchema })).min(1) });

export interface FetchPolicyOptions {
  baseUrl: string;
  apiKey: string;
  model: string;
  signal?: AbortSignal;
  maxTokens?: number;
}

export function fetchPolicy(o: FetchPolicyOptions): Policy {
  return async (messages: ChatMessage[], tools: Tool[]) => {
    const body = {
      model: o.model,
      messages,
      ...(tools.length > 0 ? { tools } : {}),
      ...(o.maxTokens !== undefined ? { max_tokens: o.maxTokens } : {}),
    };
    const res = await fetch(`${o.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${o.apiKey}` },
      body: JSON.stringify(body),
      ...(o.signal ? { signal: o.signal } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`chat/completions: HTTP ${res.status} ${text.slice(0, 300)}`);
    const parsed = CompletionSchema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(`chat/completions: unexpected answer: ${parsed.error.message}`);
    return { ...parsed.data.choices[0]!.message, role: 'assistant' };
  };
}
