import { describe, expect, it } from 'vitest';
import { parseStream } from '../../../src/shared/tool-call-stream';
import { chunkDelta } from './sse-chunks';

describe('chunkDelta', () => {
  it('streams a tool call as OpenAI does: id and name first, then argument pieces', () => {
    const { events } = parseStream(
      'Sure.\n<tool_call>\n{"name": "calc", "arguments": {"expression": "2+3"}}\n</tool_call>',
      'x',
    );
    const deltas = events.map(chunkDelta).filter((d) => d !== null);
    expect(deltas[0]).toEqual({ content: 'Sure.' });
    expect(deltas[1]).toEqual({
      tool_calls: [{ index: 0, id: 'call_x_0', type: 'function', function: { name: 'calc', arguments: '' } }],
    });
    const args = deltas.slice(2).map((d) => ('tool_calls' in d ? d.tool_calls[0].function.arguments : ''));
    expect(args.join('')).toBe('{"expression":"2+3"}');
  });
});
