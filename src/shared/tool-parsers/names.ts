// The names of the reply parsers (the `--tool-parser` / `--reasoning-parser` values), apart from
// the parsers themselves so the option declarations stay light.
import { z } from 'zod';

export const ToolParserNameSchema = z.enum(['hermes', 'llama3_json', 'harmony', 'deepseek_v3', 'qwen3_coder']);
export type ToolParserName = z.infer<typeof ToolParserNameSchema>;
export const ReasoningParserNameSchema = z.enum(['none', 'think', 'harmony']);
export type ReasoningParserName = z.infer<typeof ReasoningParserNameSchema>;

export interface ParserChoice {
  tool: ToolParserName;
  reasoning: ReasoningParserName;
}

/** What the engine must do for a family's format (LoadParams): keep its special tokens in replies
 * (Harmony), hand tool-call arguments to the template as text (DeepSeek-V3). */
export function engineTextSettings(choice: ParserChoice): {
  decodeSpecialTokens: boolean;
  toolArgumentsAsText: boolean;
} {
  return { decodeSpecialTokens: choice.reasoning === 'harmony', toolArgumentsAsText: choice.tool === 'deepseek_v3' };
}
