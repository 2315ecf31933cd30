// Chat messages from item lists where one assistant turn arrives as several items (its text, then
// each function call; the Responses API's input items, the Agents SDK's run history): text and
// calls gather into one assistant message, which any other message closes.
import type { ChatMessage, ToolCall } from './chat';

export class ChatTurns {
  private readonly out: ChatMessage[] = [];
  private text: string[] | null = null;
  private calls: ToolCall[] = [];
  private thinking: string[] = [];

  /** Reasoning of the assistant turn being gathered (it opens the turn). */
  reasoning(text: string): void {
    this.text ??= [];
    this.thinking.push(text);
  }

  assistantText(text: string): void {
    (this.text ??= []).push(text);
  }

  toolCall(call: ToolCall): void {
    this.text ??= [];
    this.calls.push(call);
  }

  /** A message of another kind (user, system, tool result): closes the open assistant turn first. */
  message(m: ChatMessage): void {
    this.close();
    this.out.push(m);
  }

  messages(): ChatMessage[] {
    this.close();
    return this.out;
  }

  private close(): void {
    if (this.text === null) return;
    const content = this.text.join('');
    const reasoning = this.thinking.length > 0 ? { reasoning_content: this.thinking.join('') } : {};
    this.out.push(
      this.calls.length > 0
        ? { role: 'assistant', content: content === '' ? null : content, tool_calls: this.calls, ...reasoning }
        : { role: 'assistant', content, ...reasoning },
    );
    this.text = null;
    this.calls = [];
    this.thinking = [];
  }
}
