// The keep-reasoning variant of a chat template: the same template, except that earlier assistant
// turns keep their reasoning when the next prompt is rendered. Qwen3's template renders
// `<think>…</think>` only for assistant turns after the last user message
// (`loop.index0 > ns.last_query_index`), so each new user turn rewrites the history and the
// previous call's prompt + output stops being a prefix of the next prompt: every call starts a new
// chain. The variant renders the reasoning of every turn that has some. Trade-off: the model is
// then trained and served on a context its default template would not show it (docs/model-families.md).

/** Known rewrites: the condition that drops earlier reasoning, and what keeps it. */
const KNOWN: readonly { family: string; drops: string; keeps: string }[] = [
  { family: 'Qwen3', drops: 'loop.index0 > ns.last_query_index', keeps: 'true' },
];

export type KeepReasoning = { ok: true; template: string; family: string } | { ok: false; reason: string };

export function keepReasoningTemplate(template: string): KeepReasoning {
  for (const k of KNOWN) {
    if (template.includes(k.drops)) {
      return { ok: true, template: template.split(k.drops).join(k.keeps), family: k.family };
    }
  }
  return {
    ok: false,
    reason:
      'no known pattern that drops earlier reasoning was found in this chat template (Qwen3 style); ' +
      'supply a keep-reasoning template with --chat-template FILE',
  };
}
