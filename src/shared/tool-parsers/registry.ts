// The reply parsers by name: one tool-call parser per format and one reasoning parser per family,
// combined into the ReplyParser a call uses. The worker picks them from the model folder
// (detect.ts) unless `--tool-parser` / `--reasoning-parser` name them.
import type { Tool } from '../chat';
import { HermesStreamParser } from '../tool-call-stream';
import { deepSeekToolParser } from './deepseek';
import { HarmonyReplyParser } from './harmony';
import { Llama3JsonToolParser } from './llama3-json';
import { qwen3CoderToolParser } from './qwen3-coder';
import { ThinkReplyParser } from './think';
import type { ParserChoice, ToolParserName } from './names';
import type { ParsedReply, ReplyEvent, ReplyParser, ToolParser } from './types';

export * from './names';

/** Hermes `<tool_call>` blocks and no reasoning: the built-in model's format. */
export const DEFAULT_PARSERS: ParserChoice = { tool: 'hermes', reasoning: 'none' };

/** Why a pair of parsers cannot work together, or null. */
export function parserConflict(choice: ParserChoice): string | null {
  if ((choice.tool === 'harmony') !== (choice.reasoning === 'harmony')) {
    return 'the harmony tool parser and the harmony reasoning parser go together (both read the same channels)';
  }
  return null;
}

export interface ReplySpec {
  idPrefix: string;
  /** False for plain-text replies (no tools offered, or tool_choice "none"). */
  parseTools: boolean;
  tools: readonly Tool[] | null;
  /** The generation prompt already opened `<think>` (the reply starts inside the reasoning). */
  startsInsideThink?: boolean;
}

function toolParser(name: ToolParserName, spec: ReplySpec): ToolParser {
  if (!spec.parseTools) return new HermesStreamParser(spec.idPrefix, false);
  switch (name) {
    case 'hermes':
    case 'harmony':
      return new HermesStreamParser(spec.idPrefix, true);
    case 'llama3_json':
      return new Llama3JsonToolParser(spec.idPrefix);
    case 'deepseek_v3':
      return deepSeekToolParser(spec.idPrefix);
    case 'qwen3_coder':
      return qwen3CoderToolParser(spec.idPrefix, spec.tools);
  }
}

/** A tool parser with no reasoning split off. */
class PlainReplyParser implements ReplyParser {
  constructor(private readonly tools: ToolParser) {}
  push(delta: string): ReplyEvent[] {
    return this.tools.push(delta);
  }
  finish(): ReplyEvent[] {
    return this.tools.finish();
  }
  result(): ParsedReply {
    return { ...this.tools.result(), reasoning: null };
  }
}

export function createReplyParser(choice: ParserChoice, spec: ReplySpec): ReplyParser {
  if (choice.reasoning === 'harmony') return new HarmonyReplyParser(spec.idPrefix, spec.parseTools);
  const tools = toolParser(choice.tool, spec);
  if (choice.reasoning === 'think') return new ThinkReplyParser(tools, spec.startsInsideThink ?? false);
  return new PlainReplyParser(tools);
}

/** A whole reply at once: its events and the parsed reply (the same as streaming it). */
export function parseReply(
  choice: ParserChoice,
  spec: ReplySpec,
  text: string,
): { events: ReplyEvent[]; parsed: ParsedReply } {
  const p = createReplyParser(choice, spec);
  const events = [...p.push(text), ...p.finish()];
  return { events, parsed: p.result() };
}
