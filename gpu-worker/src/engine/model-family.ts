// The reply parsers of the model folder the worker serves: its chat template (the --chat-template
// file, else tokenizer_config.json's `chat_template`, else chat_template.jinja) and its tokenizer's
// added tokens, read here and judged by detectParsers (src/shared/tool-parsers/detect.ts). An
// unknown format, a missing template or missing special tokens stop the worker at start with the
// reason, never a silent Hermes fallback.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { detectParsers, type ModelTemplateInfo } from '../../../src/shared/tool-parsers/detect';
import { keepReasoningTemplate } from '../../../src/shared/tool-parsers/keep-reasoning';
import type { ParserChoice } from '../../../src/shared/tool-parsers/names';
import { DEFAULT_PARSERS } from '../../../src/shared/tool-parsers/registry';

const TemplateSchema = z.union([
  z.string(),
  z.array(z.object({ name: z.string(), template: z.string() })).transform((list) => {
    return (list.find((t) => t.name === 'default') ?? list[0])?.template ?? null;
  }),
]);
const TokenizerConfigSchema = z.object({
  chat_template: TemplateSchema.nullish(),
  added_tokens_decoder: z.record(z.string(), z.object({ content: z.string() })).optional(),
});
const TokenizerSchema = z.object({ added_tokens: z.array(z.object({ content: z.string() })).optional() });

function readJson<S extends z.ZodType>(file: string, schema: S): z.output<S> | null {
  if (!existsSync(file)) return null;
  const parsed = schema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`${file}: ${parsed.error.issues[0]?.message ?? 'unexpected shape'}`);
  return parsed.data;
}

/** The template and added tokens of a model folder (the template file, when given, replaces its own). */
export function readTemplateInfo(modelPath: string, chatTemplateFile?: string): ModelTemplateInfo {
  const config = readJson(join(modelPath, 'tokenizer_config.json'), TokenizerConfigSchema);
  // tokenizer.json (often tens of MB) only when the config does not list the added tokens
  const tokenizer = config?.added_tokens_decoder ? null : readJson(join(modelPath, 'tokenizer.json'), TokenizerSchema);
  const jinja = join(modelPath, 'chat_template.jinja');
  const template = chatTemplateFile
    ? readFileSync(chatTemplateFile, 'utf8')
    : (config?.chat_template ?? (existsSync(jinja) ? readFileSync(jinja, 'utf8') : null));
  const added = new Set<string>();
  for (const t of tokenizer?.added_tokens ?? []) added.add(t.content);
  for (const t of Object.values(config?.added_tokens_decoder ?? {})) added.add(t.content);
  return { template, addedTokens: [...added] };
}

/** The parsers to use, or an Error naming what is missing. */
export function modelParsers(
  modelPath: string,
  o: {
    toolParser?: ParserChoice['tool'] | undefined;
    reasoningParser?: ParserChoice['reasoning'] | undefined;
    chatTemplate?: string | undefined;
  },
): { choice: ParserChoice; family: string } {
  // A path that is no folder is the engine's to refuse at load (and test engines serve no folder).
  if (!existsSync(modelPath)) return { choice: DEFAULT_PARSERS, family: 'Hermes (no model folder to read)' };
  const info = readTemplateInfo(modelPath, o.chatTemplate);
  const detected = detectParsers(info, {
    ...(o.toolParser ? { tool: o.toolParser } : {}),
    ...(o.reasoningParser ? { reasoning: o.reasoningParser } : {}),
  });
  if (!detected.ok) throw new Error(`cannot serve ${modelPath}: ${detected.reason}`);
  return { choice: detected.choice, family: detected.family };
}

/**
 * The template the engine must use instead of the folder's own, or null: the --chat-template file,
 * turned into its keep-reasoning variant with --keep-reasoning (an Error when no known pattern).
 */
export function servedTemplate(
  modelPath: string,
  o: { chatTemplate?: string | undefined; keepReasoning: boolean },
): string | null {
  if (!o.chatTemplate && !o.keepReasoning) return null;
  const { template } = readTemplateInfo(modelPath, o.chatTemplate);
  if (template === null) throw new Error(`cannot serve ${modelPath}: the model folder has no chat template`);
  if (!o.keepReasoning) return template;
  const kept = keepReasoningTemplate(template);
  if (!kept.ok) throw new Error(`--keep-reasoning: ${kept.reason}`);
  return kept.template;
}
