// Turns a validated OpenAI chat-completion request into what the server runs: chat messages in
// the one shape the engine renders, tools, the tool choice, bounded sampling settings and stop
// strings. Refuses what the server does not do (n > 1, structured response formats, a tool
// choice naming a missing tool, max_tokens over the limit) and a request over the request limits
// (every API's request comes here as a chat request) with a 400 that says so. Pure.
import type { ChatMessage, Tool } from '../../../src/shared/chat';
import type {
  ChatCompletionRequest,
  EpisodeKind,
  RequestMessage,
  ToolChoice,
  TrainingConfig,
} from '../../../src/shared/swarm-protocol';
import { checkRequestLimits } from '../../../src/shared/request-limits';
import { badRequest } from '../errors';

export interface PreparedRequest {
  messages: ChatMessage[];
  tools: Tool[] | null;
  /** What to do about tool calls: parse them (`auto`), never return them (`none`), insist on one. */
  toolChoice: { mode: 'auto' | 'none' | 'required'; name?: string };
  maxTokens: number;
  temperature: number;
  topP: number;
  seed: number | null;
  stop: string[];
  stream: boolean;
  includeUsage: boolean;
}

function contentText(content: RequestMessage['content']): string | null {
  if (content === undefined || content === null) return null;
  if (typeof content === 'string') return content;
  return content.map((p) => p.text).join('');
}

export function toChatMessage(m: RequestMessage): ChatMessage {
  const content = contentText(m.content);
  switch (m.role) {
    case 'assistant': {
      const calls = (m.tool_calls ?? []).map((c) => ({
        id: c.id,
        type: 'function' as const,
        function: { name: c.function.name, arguments: c.function.arguments },
      }));
      const reasoning = m.reasoning_content ? { reasoning_content: m.reasoning_content } : {};
      return calls.length > 0
        ? { role: 'assistant', content, tool_calls: calls, ...reasoning }
        : { role: 'assistant', content: content ?? '', ...reasoning };
    }
    case 'tool':
      return {
        role: 'tool',
        content: content ?? '',
        ...(m.tool_call_id !== undefined ? { tool_call_id: m.tool_call_id } : {}),
        ...(m.name !== undefined ? { name: m.name } : {}),
      };
    case 'developer':
    case 'system':
      return { role: 'system', content: content ?? '' };
    case 'user':
      return { role: 'user', content: content ?? '' };
  }
}

function toolChoiceOf(choice: ToolChoice | null | undefined, tools: Tool[] | null): PreparedRequest['toolChoice'] {
  if (choice === undefined || choice === null || choice === 'auto') return { mode: tools ? 'auto' : 'none' };
  if (choice === 'none') return { mode: 'none' };
  if (!tools)
    throw badRequest(
      'tool_choice_without_tools',
      `tool_choice ${JSON.stringify(choice)} needs a non-empty \`tools\` list`,
    );
  if (choice === 'required') return { mode: 'required' };
  const name = choice.function.name;
  if (!tools.some((t) => t.function.name === name))
    throw badRequest('unknown_tool', `tool_choice names function ${JSON.stringify(name)}, which is not in \`tools\``);
  return { mode: 'required', name };
}

/**
 * @param kind train episodes use the server's temperature/top_p when `forceTrainSampling` is on
 *   (rollout logprobs are raw, so only sampling at the server's settings keeps training on-policy).
 */
export function prepareRequest(req: ChatCompletionRequest, cfg: TrainingConfig, kind: EpisodeKind): PreparedRequest {
  checkRequestLimits(req);
  if (req.n !== undefined && req.n !== null && req.n > 1)
    throw badRequest(
      'n_not_supported',
      '`n` > 1 is not supported: send one request per sample (each is recorded as its own call)',
    );
  const format = req.response_format?.type;
  if (format !== undefined && format !== 'text')
    throw badRequest(
      'response_format_not_supported',
      `response_format ${JSON.stringify(format)} is not supported; only plain text replies are generated`,
    );
  const requested = req.max_completion_tokens ?? req.max_tokens ?? null;
  if (requested !== null && requested > cfg.maxTokensLimit) {
    throw badRequest(
      'max_tokens_too_large',
      `max_tokens ${requested} is above this server's limit of ${cfg.maxTokensLimit}`,
    );
  }
  const tools =
    req.tools && req.tools.length > 0
      ? req.tools.map((t): Tool => ({
          type: 'function',
          function: {
            name: t.function.name,
            ...(t.function.description !== undefined ? { description: t.function.description } : {}),
            ...(t.function.parameters !== undefined ? { parameters: t.function.parameters } : {}),
          },
        }))
      : null;
  const forced = kind === 'train' && cfg.forceTrainSampling;
  const stop = req.stop === undefined || req.stop === null ? [] : typeof req.stop === 'string' ? [req.stop] : req.stop;
  return {
    messages: req.messages.map(toChatMessage),
    tools,
    toolChoice: toolChoiceOf(req.tool_choice, tools),
    maxTokens: requested ?? cfg.defaultMaxTokens,
    temperature: forced ? cfg.temperature : (req.temperature ?? cfg.temperature),
    topP: forced ? cfg.topP : (req.top_p ?? cfg.topP),
    seed: req.seed === undefined || req.seed === null ? null : ((req.seed % 2 ** 31) + 2 ** 31) % 2 ** 31,
    stop,
    stream: req.stream === true,
    includeUsage: req.stream_options?.include_usage === true,
  };
}
