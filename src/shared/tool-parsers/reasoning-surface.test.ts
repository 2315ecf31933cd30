// Reasoning reaches each API in its own shape: a Responses reasoning item, a Messages `thinking`
// block (streamed and whole), and comes back in as `reasoning_content` when clients return them.
import { describe, expect, it } from 'vitest';
import { messagesToChatMessages } from '../messages/translate';
import { itemsToMessages } from '../responses/translate';
import { BlockAssembler, blocksOfMessage } from '../stream-blocks';
import { parseReply } from './registry';

const text = '<think>\nplan\n</think>\n\n<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>';

describe('reasoning surfaced', () => {
  it('streams as a reasoning block before the call, the same blocks as the whole message', () => {
    const { events, parsed } = parseReply(
      { tool: 'hermes', reasoning: 'think' },
      { idPrefix: 'x', parseTools: true, tools: null },
      text,
    );
    const a = new BlockAssembler(false);
    const out = [...events.flatMap((e) => a.push(e)), ...a.finish()];
    expect(out.filter((b) => b.kind === 'reasoning').map((b) => (b.kind === 'reasoning' ? b.text : ''))).toEqual([
      'plan',
    ]);
    const message = {
      role: 'assistant' as const,
      content: parsed.content,
      tool_calls: parsed.toolCalls,
      reasoning_content: parsed.reasoning,
    };
    expect(a.blocks).toEqual(blocksOfMessage(message, false));
    expect(a.blocks[0]).toEqual({ type: 'reasoning', text: 'plan' });
  });
  it('comes back from Responses reasoning items and Messages thinking blocks as reasoning_content', () => {
    const fromItems = itemsToMessages([
      { type: 'message', role: 'user', content: 'hi' },
      { type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'plan' }] },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
    ]);
    expect(fromItems[1]).toMatchObject({ role: 'assistant', reasoning_content: 'plan', tool_calls: [{ id: 'c1' }] });
    const fromBlocks = messagesToChatMessages({
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'plan', signature: '' },
            { type: 'text', text: 'ok' },
          ],
        },
      ],
    });
    expect(fromBlocks[1]).toMatchObject({ role: 'assistant', content: 'ok', reasoning_content: 'plan' });
  });
});
