// The streaming event interface the Responses and Messages routes translate: the Hermes stream
// parser's events (tool-call-stream.ts), which the completion service emits token by token; and
// `eventsOfDelta`, the events a whole-reply `StreamDelta` (content + completed calls) stands for. Pure.
import type { StreamDelta, StreamEvent } from './tool-call-stream';

export type { StreamEvent };

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
