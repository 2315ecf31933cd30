// Chat templates rendered with a work budget: the same text as @huggingface/jinja for honest templates
// (the built-in model's and a heavier Qwen3-style one), far within the budget even for a 2,101-message
// conversation, and a TemplateBudgetError — not a blocked event loop — for runaway loops, ranges and
// strings.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { BUILTIN_MODEL } from './testing/reward-model-fixture';
import { QWEN3_STYLE_TEMPLATE } from './testing/qwen3-chat-template';
import { BoundedTemplate, inputSize, renderBudget, TemplateBudgetError } from './bounded-template';

const BUILTIN_TEMPLATE = readFileSync(join(BUILTIN_MODEL, 'chat_template.jinja'), 'utf8');
const TOOLS = [
  {
    type: 'function',
    function: { name: 'calc', description: 'a calculator', parameters: { type: 'object', properties: {} } },
  },
];

/** A system message and `turns` × (user, assistant with a tool call and reasoning, tool result). */
function conversation(turns: number, chars = 100): Record<string, unknown> {
  const messages: object[] = [{ role: 'system', content: 'You are terse.' }];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: 'user', content: `What is ${i} + 1? ${'q'.repeat(chars)}` });
    messages.push({
      role: 'assistant',
      content: '<think>add</think>Calling.',
      tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'calc', arguments: `{"x":${i}}` } }],
    });
    messages.push({ role: 'tool', content: String(i + 1), tool_call_id: `c${i}` });
  }
  return { messages, tools: TOOLS, add_generation_prompt: false };
}

describe('BoundedTemplate', () => {
  it.each([
    ['the built-in template', BUILTIN_TEMPLATE],
    ['a Qwen3-style template', QWEN3_STYLE_TEMPLATE],
  ])('renders %s exactly as @huggingface/jinja does', (_, source) => {
    for (const items of [conversation(1), conversation(5, 3000), { ...conversation(2), tools: null }]) {
      expect(new BoundedTemplate(source).render(items)).toBe(new Template(source).render(items));
    }
  });

  it("keeps jinja's globals", () => {
    const t = new BoundedTemplate(
      '{{ range(3)|join(",") }} {{ range(1, 7, 2)|join(",") }} {{ range(3, 0, -1)|join(",") }} {{ true }} ' +
        '{{ None is none }} {% set ns = namespace(n=1) %}{% set ns.n = ns.n + 1 %}{{ ns.n }} {{ strftime_now("%Y") }}',
    );
    expect(t.render({})).toBe(`0,1,2 1,3,5 3,2,1 true true 2 ${new Date().getFullYear()}`);
    expect(() => new BoundedTemplate('{{ raise_exception("no system message") }}').render({})).toThrow(
      'no system message',
    );
    expect(() => new BoundedTemplate('{{ range("9") }}').render({})).toThrow('range() takes integers');
  });

  it.each([
    ['the built-in template', BUILTIN_TEMPLATE],
    ['a Qwen3-style template', QWEN3_STYLE_TEMPLATE],
  ])('renders %s far within its budget, from one turn to 2,101 messages', (_, source) => {
    const t = new BoundedTemplate(source);
    for (const items of [conversation(1), conversation(700, 10), conversation(700, 1000), conversation(20, 50_000)]) {
      const { units } = t.renderMetered(items, Infinity);
      expect(units).toBeLessThan(renderBudget(items) / 4);
      // Honest work is linear in the input.
      expect(units / inputSize(items)).toBeLessThan(25);
    }
  });

  it.each([
    ['a loop of 1e6', '{% for i in range(1000000) %}x{% endfor %}'],
    ['a range of 1e15', '{{ range(1000000000000000)|length }}'],
    ['nested empty loops', '{% for i in range(1000) %}{% for j in range(1000) %}{% endfor %}{% endfor %}'],
    [
      'loops over the messages nested three deep',
      '{% for a in messages %}{% for b in messages %}{% for c in messages %}{% endfor %}{% endfor %}{% endfor %}',
    ],
    [
      'a list rebuilt in a loop',
      '{% for a in messages %}{% for b in messages[::-1] %}{% break %}{% endfor %}{% endfor %}',
    ],
    [
      'a string doubled',
      '{% set ns = namespace(s="0123456789abcdef") %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}',
    ],
  ])('stops %s with a TemplateBudgetError', (_, source) => {
    const items = conversation(30);
    const render = (): string => new BoundedTemplate(source).render(items);
    expect(render).toThrow(TemplateBudgetError);
    expect(render).toThrow(/needed more than \d+ units of work to render this conversation/);
  });
});
