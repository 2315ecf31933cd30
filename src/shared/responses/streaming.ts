// The Responses API's typed streaming events, translated from the server's streaming events
// (stream-events.ts) through the block assembler: response.created / in_progress, then per output
// item output_item.added, content_part.added, output_text.delta…, output_text.done,
// content_part.done, output_item.done (function calls: function_call_arguments.delta / .done), and
// response.completed (response.incomplete when max_output_tokens cut the reply). Every event
// carries a sequence_number; the final Response's output is exactly the streamed items. Pure.
import { BlockAssembler, type Block, type BlockEvent } from '../stream-blocks';
import type { StreamEvent } from '../stream-events';
import type { ChatCompletionUsage } from '../swarm-protocol';
import type { ResponsesRequest } from './schema';
import { outputItem, responseObject, type ResponseMeta } from './translate';

export type ResponsesEvent = { type: string; sequence_number: number } & Record<string, unknown>;

const part = (text: string): Record<string, unknown> => ({ type: 'output_text', text, annotations: [], logprobs: [] });

export class ResponsesStream {
  private seq = 0;
  private readonly assembler = new BlockAssembler(true);

  constructor(
    private readonly meta: ResponseMeta,
    private readonly req: ResponsesRequest,
  ) {}

  private event(type: string, fields: Record<string, unknown>): ResponsesEvent {
    return { type, sequence_number: this.seq++, ...fields };
  }

  start(): ResponsesEvent[] {
    const response = responseObject(this.meta, this.req, null);
    return [this.event('response.created', { response }), this.event('response.in_progress', { response })];
  }

  push(e: StreamEvent): ResponsesEvent[] {
    return this.assembler.push(e).flatMap((b) => this.translate(b));
  }

  /** Closes the open item and answers the terminal event; `blocks` are the Response's output. */
  finish(outcome: { finishReason: 'stop' | 'length' | 'tool_calls'; usage: ChatCompletionUsage }): {
    events: ResponsesEvent[];
    blocks: Block[];
  } {
    const events = this.assembler.finish().flatMap((b) => this.translate(b));
    const blocks = this.assembler.blocks;
    const response = responseObject(this.meta, this.req, { blocks, ...outcome });
    events.push(
      this.event(outcome.finishReason === 'length' ? 'response.incomplete' : 'response.completed', { response }),
    );
    return { events, blocks };
  }

  /** The `error` event a stream ends with when the call fails after the first event. */
  error(code: string, message: string): ResponsesEvent {
    return this.event('error', { code, message, param: null });
  }

  private translate(b: BlockEvent): ResponsesEvent[] {
    const m = this.meta;
    const output_index = b.index;
    const prefix = { text: 'msg', tool_call: 'fc', reasoning: 'rs' } as const;
    const itemId = (block: Block): string => `${prefix[block.type]}_${m.itemBase}_${b.index}`;
    switch (b.kind) {
      case 'open': {
        const added = this.event('response.output_item.added', {
          output_index,
          item: outputItem(m, b.index, b.block, 'in_progress'),
        });
        if (b.block.type !== 'text') return [added];
        return [
          added,
          this.event('response.content_part.added', {
            item_id: itemId(b.block),
            output_index,
            content_index: 0,
            part: part(''),
          }),
        ];
      }
      case 'text':
        return [
          this.event('response.output_text.delta', {
            item_id: `msg_${m.itemBase}_${b.index}`,
            output_index,
            content_index: 0,
            delta: b.text,
            logprobs: [],
          }),
        ];
      case 'reasoning':
        return [
          this.event('response.reasoning_text.delta', {
            item_id: `rs_${m.itemBase}_${b.index}`,
            output_index,
            content_index: 0,
            delta: b.text,
          }),
        ];
      case 'args':
        return [
          this.event('response.function_call_arguments.delta', {
            item_id: `fc_${m.itemBase}_${b.index}`,
            output_index,
            delta: b.text,
          }),
        ];
      case 'close': {
        const closing = this.closing(b.block, itemId(b.block), output_index);
        return [
          ...closing,
          this.event('response.output_item.done', { output_index, item: outputItem(m, b.index, b.block, 'completed') }),
        ];
      }
    }
  }

  /** The done events of a block, before its output_item.done. */
  private closing(block: Block, item_id: string, output_index: number): ResponsesEvent[] {
    const done = this.event.bind(this);
    if (block.type === 'text') {
      return [
        done('response.output_text.done', { item_id, output_index, content_index: 0, text: block.text, logprobs: [] }),
        done('response.content_part.done', { item_id, output_index, content_index: 0, part: part(block.text) }),
      ];
    }
    if (block.type === 'reasoning') {
      return [done('response.reasoning_text.done', { item_id, output_index, content_index: 0, text: block.text })];
    }
    const fields = { item_id, output_index, name: block.name, arguments: block.arguments };
    return [done('response.function_call_arguments.done', fields)];
  }
}
