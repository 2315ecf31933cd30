// The output of one assistant turn as an ordered list of blocks — text runs and tool calls — the
// shape both the Responses API (output items) and the Messages API (content blocks) send. The
// assembler turns the streaming events (stream-events.ts) into block open / delta / close events in
// output order; `blocksOfMessage` gives the same blocks for a whole message (non-streaming answers).
// Concatenating the text blocks in order gives the message content. Pure.
import type { ChatMessage, ToolCall } from './chat';
import type { StreamEvent } from './stream-events';

export type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; id: string; name: string; arguments: string }
  /** The turn's reasoning: a Responses reasoning item, a Messages `thinking` block. */
  | { type: 'reasoning'; text: string };

export type BlockEvent =
  | { kind: 'open'; index: number; block: Block }
  | { kind: 'text'; index: number; text: string }
  | { kind: 'args'; index: number; text: string }
  | { kind: 'reasoning'; index: number; text: string }
  | { kind: 'close'; index: number; block: Block };

const callBlock = (c: ToolCall): Block => ({
  type: 'tool_call',
  id: c.id,
  name: c.function.name,
  arguments: c.function.arguments,
});

/**
 * The blocks of a whole assistant message: its content (when non-empty, or when there is nothing
 * else and `emptyText` asks for a text block anyway), then its tool calls.
 */
export function blocksOfMessage(m: ChatMessage, emptyText: boolean): Block[] {
  const calls = (m.tool_calls ?? []).map(callBlock);
  const text = m.content ?? '';
  const reasoning: Block[] = m.reasoning_content ? [{ type: 'reasoning', text: m.reasoning_content }] : [];
  const rest = text !== '' || (calls.length === 0 && emptyText) ? [{ type: 'text', text } as const, ...calls] : calls;
  return [...reasoning, ...rest];
}

export class BlockAssembler {
  readonly blocks: Block[] = [];
  private openIndex: number | null = null;
  private readonly byCall = new Map<number, number>();

  /** @param emptyText whether a turn with no output at all still gets one (empty) text block. */
  constructor(private readonly emptyText: boolean) {}

  push(e: StreamEvent): BlockEvent[] {
    const out: BlockEvent[] = [];
    switch (e.kind) {
      case 'content': {
        const open = this.openIndex === null ? undefined : this.blocks[this.openIndex];
        if (open?.type !== 'text') {
          this.closeOpen(out);
          this.openBlock({ type: 'text', text: '' }, out);
        }
        const index = this.openIndex!;
        const block = this.blocks[index]!;
        if (block.type === 'text') block.text += e.text;
        out.push({ kind: 'text', index, text: e.text });
        break;
      }
      case 'reasoning': {
        const open = this.openIndex === null ? undefined : this.blocks[this.openIndex];
        if (open?.type !== 'reasoning') {
          this.closeOpen(out);
          this.openBlock({ type: 'reasoning', text: '' }, out);
        }
        const index = this.openIndex!;
        const block = this.blocks[index]!;
        if (block.type === 'reasoning') block.text += e.text;
        out.push({ kind: 'reasoning', index, text: e.text });
        break;
      }
      case 'tool_call_start':
        this.closeOpen(out);
        this.openBlock({ type: 'tool_call', id: e.id, name: e.name, arguments: '' }, out);
        this.byCall.set(e.index, this.openIndex!);
        break;
      case 'tool_call_args': {
        const index = this.byCall.get(e.index);
        const block = index === undefined ? undefined : this.blocks[index];
        if (index === undefined || block?.type !== 'tool_call') break;
        block.arguments += e.text;
        out.push({ kind: 'args', index, text: e.text });
        break;
      }
      case 'tool_call_end': {
        const index = this.byCall.get(e.index);
        const block = index === undefined ? undefined : this.blocks[index];
        if (index === undefined || block?.type !== 'tool_call') break;
        // The parsed call is the truth (its arguments are what the client sends back).
        block.arguments = e.call.function.arguments;
        block.id = e.call.id;
        if (this.openIndex === index) this.closeOpen(out);
        break;
      }
    }
    return out;
  }

  /** Closes what is open; a turn that produced nothing gets its empty text block (if asked). */
  finish(): BlockEvent[] {
    const out: BlockEvent[] = [];
    this.closeOpen(out);
    if (this.blocks.length === 0 && this.emptyText) {
      this.openBlock({ type: 'text', text: '' }, out);
      this.closeOpen(out);
    }
    return out;
  }

  private openBlock(block: Block, out: BlockEvent[]): void {
    this.blocks.push(block);
    this.openIndex = this.blocks.length - 1;
    out.push({ kind: 'open', index: this.openIndex, block: { ...block } });
  }

  private closeOpen(out: BlockEvent[]): void {
    if (this.openIndex === null) return;
    const index = this.openIndex;
    this.openIndex = null;
    out.push({ kind: 'close', index, block: { ...this.blocks[index]! } });
  }
}

/** Tool-call arguments as a JSON object (the Messages API's `input`); `{}` when they are not one. */
export function argumentsObject(args: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(args);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
