// The episodes the family tests (families.test.ts) and `npm run bench -- families` play against a
// worker whose engine forces the family's replies (family-models.ts): one through chat completions
// (a tool call, plain; the answer, streamed; a new question's tool call, streamed; its answer,
// plain), one through Responses (streamed, then plain) and one through Messages (plain, then
// streamed), each sending back what the SDK returned — reasoning included — as a client does.
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { z } from 'zod';
import type { ClaimResponse } from '../../../src/shared/swarm-protocol';
import type { Family } from './family-models';
import { http, TEST_TOKENS, type TestWorker } from './workers';

export const SYSTEM = 'You are a calculator. Use the calc tool.';
const PARAMETERS = {
  type: 'object' as const,
  properties: { expression: { type: 'string', description: 'the arithmetic to evaluate' } },
  required: ['expression'],
};
const CHAT_TOOL: OpenAI.Chat.ChatCompletionTool = {
  type: 'function',
  function: { name: 'calc', description: 'Evaluate arithmetic.', parameters: PARAMETERS },
};

type Round = readonly [expression: string, result: string];

/** The questions of a chat episode of `n` user turns: [expression, result]; the other APIs play the first. */
export function rounds(n: number): Round[] {
  return Array.from({ length: n }, (_, i): Round => [`${2 + 2 * i}+${3 + i}`, String(5 + 3 * i)]);
}
const ROUNDS = rounds(2);

/** The replies of a chat episode of `n` user turns (a tool call and an answer each), in call order. */
export function chatReplies(family: Family, n: number): string[] {
  return rounds(n).flatMap(([e, r]) => [family.call(e), family.answer(r)]);
}

/** The replies to force, in call order: chat (4 calls), Responses (2), Messages (2). */
export function familyReplies(family: Family): string[] {
  return [...chatReplies(family, 2), ...chatReplies(family, 1), ...chatReplies(family, 1)];
}
export const CALLS_PER_ROUND = 8;

export interface SeenCall {
  name: string;
  args: unknown;
}

export interface EpisodeFindings {
  api: 'chat' | 'responses' | 'messages';
  episodeId: string;
  toolCalls: SeenCall[];
  expectedToolCalls: SeenCall[];
  answers: string[];
  expectedAnswers: string[];
  reasoning: string[];
}

const Reasoning = z.object({ reasoning_content: z.string().nullish() }).loose();
const parseArgs = (s: string): unknown => JSON.parse(s) as unknown;

export async function end(t: TestWorker, episodeId: string, reward: number): Promise<void> {
  const res = await http(t.worker.url, 'POST', `/swarm/v1/episodes/${episodeId}/end`, {
    token: TEST_TOKENS.join,
    body: { taskId: 'task-1', reward },
  });
  if (res.status !== 200) throw new Error(`end ${episodeId}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
}

/** One streamed chat completion, assembled from its chunks as a client does. */
async function chatStream(
  client: OpenAI,
  params: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
): Promise<OpenAI.Chat.ChatCompletionAssistantMessageParam & { reasoning_content?: string }> {
  const stream = await client.chat.completions.create({ ...params, stream: true });
  let content = '';
  let reasoning = '';
  const calls: OpenAI.Chat.ChatCompletionMessageFunctionToolCall[] = [];
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta;
    if (!delta) continue;
    content += delta.content ?? '';
    reasoning += Reasoning.parse(delta).reasoning_content ?? '';
    for (const tc of delta.tool_calls ?? []) {
      const call = (calls[tc.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
      call.id ||= tc.id ?? '';
      call.function.name += tc.function?.name ?? '';
      call.function.arguments += tc.function?.arguments ?? '';
    }
  }
  return {
    role: 'assistant',
    content: content === '' ? null : content,
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
    ...(reasoning !== '' ? { reasoning_content: reasoning } : {}),
  };
}

type ChatReply = OpenAI.Chat.ChatCompletionAssistantMessageParam & { reasoning_content?: string | null };

function seeChat(f: EpisodeFindings, m: ChatReply): void {
  for (const c of m.tool_calls ?? []) {
    if (c.type === 'function') f.toolCalls.push({ name: c.function.name, args: parseArgs(c.function.arguments) });
  }
  if (typeof m.content === 'string' && m.content !== '') f.answers.push(m.content);
  if (m.reasoning_content) f.reasoning.push(m.reasoning_content);
}

function findings(api: EpisodeFindings['api'], episodeId: string, n: number): EpisodeFindings {
  const played = rounds(n);
  return {
    api,
    episodeId,
    toolCalls: [],
    expectedToolCalls: played.map(([e]) => ({ name: 'calc', args: { expression: e } })),
    answers: [],
    expectedAnswers: played.map(([, r]) => `The answer is ${r}.`),
    reasoning: [],
  };
}

/** A chat-completions tool episode of `n` user turns (plain and streamed calls alternate). */
export async function chatEpisode(c: ClaimResponse, client: OpenAI, n = 2): Promise<EpisodeFindings> {
  const f = findings('chat', c.episodeId, n);
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'system', content: SYSTEM }];
  const base = { model: c.model, tools: [CHAT_TOOL], max_tokens: 128, temperature: 1 };
  for (const [i, [expression, result]] of rounds(n).entries()) {
    messages.push({ role: 'user', content: `What is ${expression}?` });
    const callMessage: ChatReply =
      i % 2 === 0
        ? (await client.chat.completions.create({ ...base, messages })).choices[0]!.message
        : await chatStream(client, { ...base, messages });
    seeChat(f, { ...callMessage, ...Reasoning.parse(callMessage) });
    const id = callMessage.tool_calls?.[0]?.id ?? 'missing';
    messages.push(callMessage, { role: 'tool', tool_call_id: id, content: result });
    const answer: ChatReply =
      i % 2 === 0
        ? await chatStream(client, { ...base, messages })
        : (await client.chat.completions.create({ ...base, messages })).choices[0]!.message;
    seeChat(f, { ...answer, ...Reasoning.parse(answer) });
    messages.push(answer);
  }
  return f;
}

async function responsesEpisode(c: ClaimResponse, client: OpenAI): Promise<EpisodeFindings> {
  const f = findings('responses', c.episodeId, 1);
  const [expression, result] = ROUNDS[0]!;
  const tool: OpenAI.Responses.FunctionTool = { type: 'function', name: 'calc', parameters: PARAMETERS, strict: false };
  const base = { model: c.model, instructions: SYSTEM, tools: [tool], max_output_tokens: 128, temperature: 1 };
  const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: `What is ${expression}?` }];
  const first = await client.responses.stream({ ...base, input }).finalResponse();
  const see = (r: OpenAI.Responses.Response): void => {
    for (const o of r.output) {
      if (o.type === 'function_call') f.toolCalls.push({ name: o.name, args: parseArgs(o.arguments) });
      if (o.type === 'reasoning') f.reasoning.push((o.content ?? []).map((p) => p.text).join(''));
    }
    if (r.output_text !== '') f.answers.push(r.output_text);
  };
  see(first);
  const callId = first.output.find((o) => o.type === 'function_call')?.call_id ?? 'missing';
  for (const o of first.output) {
    if (o.type === 'function_call' || o.type === 'reasoning' || o.type === 'message') input.push(o);
  }
  input.push({ type: 'function_call_output', call_id: callId, output: result });
  see(await client.responses.create({ ...base, input }));
  return f;
}

async function messagesEpisode(c: ClaimResponse, client: Anthropic): Promise<EpisodeFindings> {
  const f = findings('messages', c.episodeId, 1);
  const [expression, result] = ROUNDS[0]!;
  const tool: Anthropic.Tool = { name: 'calc', description: 'Evaluate arithmetic.', input_schema: PARAMETERS };
  const base = { model: c.model, system: SYSTEM, tools: [tool], max_tokens: 128, temperature: 1 };
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: `What is ${expression}?` }];
  const see = (m: Anthropic.Message): void => {
    for (const b of m.content) {
      if (b.type === 'tool_use') f.toolCalls.push({ name: b.name, args: b.input });
      if (b.type === 'thinking') f.reasoning.push(b.thinking);
    }
    const text = m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    if (text !== '') f.answers.push(text);
  };
  const first = await client.messages.create({ ...base, messages });
  see(first);
  const use = first.content.find((b) => b.type === 'tool_use');
  messages.push(
    { role: 'assistant', content: first.content },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: use?.id ?? 'missing', content: result }] },
  );
  see(await client.messages.stream({ ...base, messages }).finalMessage());
  return f;
}

export interface EpisodeClients {
  claim(clientId: string): Promise<ClaimResponse>;
  openai(c: ClaimResponse): OpenAI;
  anthropic(c: ClaimResponse): Anthropic;
}

/** Plays the chat, Responses and Messages episodes in this order (each ended, rewards 1, 0, 0.5). */
export async function apiEpisodes(t: TestWorker, clients: EpisodeClients): Promise<EpisodeFindings[]> {
  const out: EpisodeFindings[] = [];
  const chat = await clients.claim('family-chat');
  out.push(await chatEpisode(chat, clients.openai(chat)));
  await end(t, chat.episodeId, 1);
  const responses = await clients.claim('family-responses');
  out.push(await responsesEpisode(responses, clients.openai(responses)));
  await end(t, responses.episodeId, 0);
  const messages = await clients.claim('family-messages');
  out.push(await messagesEpisode(messages, clients.anthropic(messages)));
  await end(t, messages.episodeId, 0.5);
  return out;
}
