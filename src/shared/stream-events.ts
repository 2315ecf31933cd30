// The streaming event interface the Responses and Messages routes translate (BOARD.md "Streaming
// events": serving's tool-call-stream.ts will declare it and the completion service will emit it),
// and, until then, the one adapter from today's `StreamDelta` (content deltas and completed tool
// calls) into those events. Switching to serving's events is one line where the hooks are built
// (`streamHooks` in gpu-worker/src/server/sse.ts). Pure.
import type { ToolCall } from './chat';
import type { StreamDelta } from './tool-call-stream';

export type StreamEvent =
  | { kind: 'content'; text: string }
  | { kind: 'tool_call_start'; index: number; id: string; name: string }
  | { kind: 'tool_call_args'; index: number; text: string }
  | { kind: 'tool_call_end'; index: number; call: ToolCall };

/** The events one `StreamDelta` stands for: its content, then each completed call as start, args, end. */
export function eventsOfDelta(delta: StreamDelta): StreamEvent[] {
  const events: StreamEvent[] = [];
  if (delta.content !== '') events.push({ kind: 'content', text: delta.content });
  for (const { index, call } of delta.toolCalls) {
    events.push({ kind: 'tool_call_start', index, id: call.id, name: call.function.name });
    if (call.function.arguments !== '') events.push({ kind: 'tool_call_args', index, text: call.function.arguments });
    events.push({ kind: 'tool_call_end', index, call });
  }
  return events;
}
