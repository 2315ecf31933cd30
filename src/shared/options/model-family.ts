// The worker options of the model family (docs/model-families.md): which tool-call and reasoning
// parsers read the replies, which chat template renders the prompts. Part of WORKER_OPTIONS
// (declarations.ts), declared here to keep that table's file within its size.
import { ReasoningParserNameSchema, ToolParserNameSchema } from '../tool-parsers/names';
import { bool, enumOf, option, text } from './spec';

export const MODEL_FAMILY_OPTIONS = {
  toolParser: option({
    value: enumOf(ToolParserNameSchema),
    flag: 'tool-parser',
    help: "the model's tool-call format (docs/model-families.md)",
    unset: 'detected from the chat template; refused at start when unknown',
  }),
  reasoningParser: option({
    value: enumOf(ReasoningParserNameSchema),
    flag: 'reasoning-parser',
    help: 'how the reply carries reasoning: none, think (<think>…</think>) or harmony (analysis channel)',
    unset: 'detected from the chat template',
  }),
  chatTemplate: option({
    value: text(),
    flag: 'chat-template',
    arg: 'FILE',
    help: "a Jinja chat template replacing the model folder's own (e.g. for gpt-oss or Llama 3.1 tools)",
    unset: "the folder's template",
  }),
  keepReasoning: option({
    value: bool,
    default: false,
    flag: 'keep-reasoning',
    help:
      "render earlier turns' reasoning into later prompts (a variant of Qwen3-style templates), so thinking " +
      "episodes merge; the trained context then differs from the model's default serving context",
  }),
};
