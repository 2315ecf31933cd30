// Which reply parsers a model folder needs, from its chat template and its tokenizer's added
// tokens: the tool-call syntax the template renders, and whether it renders reasoning. Pure; the
// worker reads the folder (gpu-worker/src/engine/model-family.ts). Unknown → a reason, never a
// silent Hermes fallback.
import { DEEPSEEK_CALL_BEGIN, DEEPSEEK_SEP } from './deepseek';
import { HARMONY } from './harmony';
import { PYTHON_TAG } from './llama3-json';
import type { ParserChoice, ReasoningParserName, ToolParserName } from './names';
import { THINK_CLOSE, THINK_OPEN } from './think';

export interface ModelTemplateInfo {
  /** The chat template text (null when the folder has none). */
  template: string | null;
  /** The tokenizer's added tokens (their text). */
  addedTokens: readonly string[];
}

export type Detected = { ok: true; choice: ParserChoice; family: string } | { ok: false; reason: string };

/** Tokens a parser's syntax is made of, which the tokenizer must have as single tokens. */
export const REQUIRED_TOKENS: Partial<Record<ToolParserName | ReasoningParserName, readonly string[]>> = {
  harmony: [HARMONY.channel, HARMONY.message, HARMONY.end, HARMONY.start],
  deepseek_v3: [DEEPSEEK_CALL_BEGIN, DEEPSEEK_SEP],
  think: [THINK_OPEN, THINK_CLOSE],
};

function toolFormat(t: string, tokens: ReadonlySet<string>): { tool: ToolParserName; family: string } | null {
  if (t.includes(HARMONY.channel) || (t === '' && tokens.has(HARMONY.channel) && tokens.has(HARMONY.message))) {
    return { tool: 'harmony', family: 'gpt-oss (Harmony)' };
  }
  if (t.includes(DEEPSEEK_CALL_BEGIN)) return { tool: 'deepseek_v3', family: 'DeepSeek-V3' };
  if (t.includes('<function=') && t.includes('<parameter=')) return { tool: 'qwen3_coder', family: 'Qwen3-Coder' };
  if (t.includes('<tool_call>'))
    return { tool: 'hermes', family: t.includes(THINK_OPEN) ? 'Qwen3' : 'Hermes (Qwen2.5-style)' };
  if (t.includes(PYTHON_TAG) || (t.includes('<|start_header_id|>') && t.includes('"parameters"'))) {
    return { tool: 'llama3_json', family: 'Llama 3.x' };
  }
  return null;
}

function reasoningFormat(t: string, tool: ToolParserName): ReasoningParserName {
  if (tool === 'harmony') return 'harmony';
  return t.includes(THINK_CLOSE) ? 'think' : 'none';
}

/** The parsers of a model, detected; `override` (the options) wins field by field. */
export function detectParsers(info: ModelTemplateInfo, override: Partial<ParserChoice> = {}): Detected {
  const t = info.template ?? '';
  const tokens = new Set(info.addedTokens);
  const found = toolFormat(t, tokens);
  const tool = override.tool ?? found?.tool;
  if (tool === undefined) {
    return {
      ok: false,
      reason:
        info.template === null
          ? 'the model folder has no chat template (tokenizer_config.json chat_template or chat_template.jinja); ' +
            'supply one with --chat-template FILE'
          : 'the chat template renders no tool-call format this worker knows (Hermes <tool_call>, Llama 3 JSON, ' +
            'Harmony, DeepSeek-V3, Qwen3-Coder XML); name one with --tool-parser, and pass a template that renders ' +
            'its tool calls and results with --chat-template FILE (resources/chat-templates/ has some, e.g. ' +
            'gemma3-hermes-tools.jinja with --tool-parser hermes)',
    };
  }
  const reasoning = override.reasoning ?? reasoningFormat(t, tool);
  for (const name of [tool, reasoning]) {
    const missing = (REQUIRED_TOKENS[name] ?? []).filter((tok) => !tokens.has(tok));
    if (missing.length > 0) {
      return {
        ok: false,
        reason: `the ${name} format needs the special tokens ${missing.join(' ')}, which this tokenizer does not have`,
      };
    }
  }
  const family = found && found.tool === tool ? found.family : `custom (${tool})`;
  return { ok: true, choice: { tool, reasoning }, family };
}
