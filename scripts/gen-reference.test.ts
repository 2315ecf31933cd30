// The generated reference pages are committed; this fails when they no longer match the option
// declarations or the CLI's command table (the fix: `npm run docs`).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { option, text, intIn, numberIn, oneOf, bool } from '../src/shared/options';
import { COMMANDS } from '../src/cli/commands';
import { cliMarkdown, optionsMarkdown, stalePages, valueText } from './gen-reference';

describe('generated reference (docs/reference)', () => {
  it('is up to date with the declarations and the command table (else run `npm run docs`)', async () => {
    expect(await stalePages()).toEqual([]);
  }, 30_000);

  it('has a row for every declared option and a section for every command', () => {
    const options = optionsMarkdown();
    for (const key of ['lr', 'groupSize', 'engineProcs', 'maxEpisodeTimeoutS'])
      expect(options).toContain(`| \`${key}\` |`);
    const cli = cliMarkdown();
    for (const name of Object.keys(COMMANDS)) expect(cli).toContain(`\`agentjet ${name}\``);
    expect(cli).toContain('## agentjet labels, agentjet reward-model');
  });

  it('reads the accepted values from the schema', () => {
    expect(valueText(option({ value: intIn(1, 64), help: '' }))).toBe('int 1–64');
    expect(valueText(option({ value: intIn(0), help: '' }))).toBe('int ≥ 0');
    expect(valueText(option({ value: numberIn(z.number().gt(0).max(1)), help: '' }))).toBe('number > 0, ≤ 1');
    expect(valueText(option({ value: oneOf(['a', 'b']), help: '' }))).toBe('a | b');
    expect(valueText(option({ value: bool, help: '' }))).toBe('true | false');
    expect(valueText(option({ value: text(z.string().url()), help: '' }))).toBe('URL');
    expect(valueText(option({ value: text(), help: '' }))).toBe('text');
  });

  it('escapes what a Markdown table cell cannot hold', () => {
    const md = cliMarkdown({
      x: { summary: 'a | b <c>', help: '  agentjet x   does x', run: () => Promise.resolve() },
    });
    expect(md).toContain('| `agentjet x` | a \\| b \\<c> |');
    expect(md).toContain('```text\nagentjet x   does x\n```');
  });
});
