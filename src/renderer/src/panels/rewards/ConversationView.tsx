// An episode's conversation as the reward model reads it: one block per message (role, text, tool
// calls), for judging episodes side by side in the label queue.
import type { ChatMessage } from '../../../../shared/chat';

export function ConversationView({
  messages,
  skipSystem = true,
}: {
  messages: readonly ChatMessage[];
  skipSystem?: boolean;
}) {
  const shown = skipSystem ? messages.filter((m) => m.role !== 'system') : messages;
  return (
    <div className="rw-conv" data-testid="conversation">
      {shown.map((m, i) => (
        <div key={i} className={`rw-msg ${m.role}`}>
          <span className="rw-role">{m.role}</span>
          {m.content ? <pre className="rw-text">{m.content}</pre> : null}
          {(m.tool_calls ?? []).map((c) => (
            <pre key={c.id} className="rw-text rw-call">
              {c.function.name}({c.function.arguments})
            </pre>
          ))}
        </div>
      ))}
    </div>
  );
}
