// A reward model's text side in Node: the conversation rendered with the model's own chat template
// (@huggingface/jinja) and tokenized with its tokenizer.json (@huggingface/tokenizers) — the maintained
// libraries, giving the same token ids as the Python tokenizer the model was trained with (checked in
// reward-model.integration.test.ts). Tool-call arguments are rendered as the JSON text the model wrote;
// no generation prompt; a conversation longer than `maxLength` keeps its last `maxLength` tokens. The
// template comes from the model folder, so its rendering is bounded (bounded-template.ts).
import { Tokenizer } from '@huggingface/tokenizers';
import { z } from 'zod';
import type { Conversation } from '../shared/reward-model';
import { BoundedTemplate } from './bounded-template';

const TokenText = z.union([z.string(), z.object({ content: z.string() }).transform((t) => t.content)]);
const TokenizerConfigSchema = z.looseObject({
  bos_token: TokenText.nullish(),
  eos_token: TokenText.nullish(),
  pad_token: TokenText.nullish(),
  unk_token: TokenText.nullish(),
  chat_template: z.string().optional(),
});

export class ConversationEncoder {
  private readonly tokenizer: Tokenizer;
  private readonly template: BoundedTemplate;
  private readonly specials: Record<string, string>;
  /** Token ids run from 0 to vocabSize − 1 (added tokens included). */
  readonly vocabSize: number;

  /**
   * @param tokenizerJson the parsed tokenizer.json
   * @param tokenizerConfig the parsed tokenizer_config.json
   * @param chatTemplate the template text (chat_template.jinja, else the config's `chat_template`)
   */
  constructor(
    tokenizerJson: object,
    tokenizerConfig: object,
    chatTemplate: string | null,
    readonly maxLength: number,
  ) {
    const config = TokenizerConfigSchema.parse(tokenizerConfig);
    const template = chatTemplate ?? config.chat_template;
    if (!template)
      throw new Error(
        'the reward model has no chat template (chat_template.jinja or tokenizer_config.json chat_template)',
      );
    this.tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
    let max = -1;
    for (const id of this.tokenizer.get_vocab(true).values()) if (id > max) max = id;
    this.vocabSize = max + 1;
    this.template = new BoundedTemplate(template);
    this.specials = Object.fromEntries(
      (['bos_token', 'eos_token', 'pad_token', 'unk_token'] as const).flatMap((k) =>
        typeof config[k] === 'string' ? [[k, config[k]]] : [],
      ),
    );
  }

  /** The conversation as the chat template renders it. */
  render(c: Conversation): string {
    return this.template.render({
      ...this.specials,
      messages: c.messages,
      tools: c.tools && c.tools.length > 0 ? c.tools : null,
      add_generation_prompt: false,
    });
  }

  /** Token ids of the rendered conversation (the last `maxLength` of them). */
  encode(c: Conversation): number[] {
    const ids = this.tokenizer.encode(this.render(c), { add_special_tokens: false }).ids;
    return ids.length > this.maxLength ? ids.slice(ids.length - this.maxLength) : ids;
  }
}
