// Pure: the `delta` of an OpenAI `chat.completion.chunk` for each StreamEvent, the way OpenAI and
// vLLM stream tool calls — the call's index, id, type and name (empty arguments) as soon as the
// name is known, then `arguments` text as it is generated; content deltas as produced.
import type { StreamEvent } from '../../../src/shared/tool-call-stream';

export type ChunkDelta =
  | { content: string }
  | { reasoning_content: string }
  | { tool_calls: [{ index: number; id: string; type: 'function'; function: { name: string; arguments: string } }] }
  | { tool_calls: [{ index: number; function: { arguments: string } }] };

/** The chunk delta for an event, or null when the event sends nothing (a call's end). */
export function chunkDelta(e: StreamEvent): ChunkDelta | null {
  switch (e.kind) {
    case 'content':
      return e.text === '' ? null : { content: e.text };
    case 'tool_call_start':
      return {
        tool_calls: [{ index: e.index, id: e.id, type: 'function', function: { name: e.name, arguments: '' } }],
      };
    case 'tool_call_args':
      return e.text === '' ? null : { tool_calls: [{ index: e.index, function: { arguments: e.text } }] };
    case 'tool_call_end':
      return null;
    case 'reasoning': // vLLM's and DeepSeek's field for reasoning deltas
      return e.text === '' ? null : { reasoning_content: e.text };
  }
}
