// The Messages API's streaming events, translated from the server's streaming events
// (stream-events.ts) through the block assembler: message_start, then per content block
// content_block_start, content_block_delta (text_delta / input_json_delta)…, content_block_stop,
// then message_delta (stop_reason, usage) and message_stop. The prompt's token count is only known
// when the call ends, so message_start reports 0 input tokens and message_delta the real count
// (the SDKs take it from there). Pure.
import { BlockAssembler, type Block, type BlockEvent } from '../stream-blocks';
import type { StreamEvent } from '../stream-events';
import type { ChatCompletionUsage } from '../swarm-protocol';
import { messagesUsage, stopReasonOf } from './translate';

export type MessagesEvent = { type: string } & Record<string, unknown>;

export class MessagesStream {
  private started = false;
  private readonly assembler = new BlockAssembler(false);

  constructor(
    private readonly id: string,
    private readonly model: string,
  ) {}

  private start(): MessagesEvent[] {
    if (this.started) return [];
    this.started = true;
    return [
      {
        type: 'message_start',
        message: {
          id: this.id,
          type: 'message',
          role: 'assistant',
          model: this.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 0, output_tokens: 0 },
        },
      },
    ];
  }

  push(e: StreamEvent): MessagesEvent[] {
    const blocks = this.assembler.push(e);
    return blocks.length === 0 ? [] : [...this.start(), ...blocks.map((b) => this.translate(b))];
  }

  finish(
    finish: 'stop' | 'length' | 'tool_calls',
    usage: ChatCompletionUsage,
  ): { events: MessagesEvent[]; blocks: Block[] } {
    const events = [...this.start(), ...this.assembler.finish().map((b) => this.translate(b))];
    events.push(
      {
        type: 'message_delta',
        delta: { stop_reason: stopReasonOf(finish), stop_sequence: null },
        usage: messagesUsage(usage),
      },
      { type: 'message_stop' },
    );
    return { events, blocks: this.assembler.blocks };
  }

  /** The `error` event a stream ends with when the call fails after the first event. */
  static error(type: string, message: string): MessagesEvent {
    return { type: 'error', error: { type, message } };
  }

  private translate(b: BlockEvent): MessagesEvent {
    switch (b.kind) {
      case 'open':
        return {
          type: 'content_block_start',
          index: b.index,
          content_block:
            b.block.type === 'reasoning'
              ? { type: 'thinking', thinking: '', signature: '' }
              : b.block.type === 'text'
                ? { type: 'text', text: '' }
                : { type: 'tool_use', id: b.block.id, name: b.block.name, input: {} },
        };
      case 'text':
        return { type: 'content_block_delta', index: b.index, delta: { type: 'text_delta', text: b.text } };
      case 'reasoning':
        return { type: 'content_block_delta', index: b.index, delta: { type: 'thinking_delta', thinking: b.text } };
      case 'args':
        return {
          type: 'content_block_delta',
          index: b.index,
          delta: { type: 'input_json_delta', partial_json: b.text },
        };
      case 'close':
        return { type: 'content_block_stop', index: b.index };
    }
  }
}
