// FAKE, for tests only: an OpenAI-compatible chat-completions server on a free port that answers
// with scripted replies, one per request in order (tool calls or text, broken code included), and
// records every request it got, so tests can check what was fed back to the "LLM".
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

export interface ScriptedReply {
  content?: string;
  /** Arguments as an object (sent as JSON) or as raw text (e.g. broken JSON). */
  toolCalls?: { name: string; arguments: Record<string, unknown> | string }[];
  totalTokens?: number;
}

export type Responder = ScriptedReply | ((request: FakeChatRequest) => ScriptedReply);

const RequestSchema = z
  .object({
    model: z.string(),
    messages: z.array(
      z
        .object({
          role: z.string(),
          content: z.unknown().optional(),
          tool_calls: z.array(z.unknown()).optional(),
          tool_call_id: z.string().optional(),
        })
        .loose(),
    ),
    tools: z.array(z.unknown()).optional(),
  })
  .loose();
export type FakeChatRequest = z.infer<typeof RequestSchema>;

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export class FakeChatServer {
  readonly requests: FakeChatRequest[] = [];
  private readonly server: Server;
  private next = 0;

  private constructor(private readonly script: Responder[]) {
    this.server = createServer((req, res) => {
      void body(req).then((text) => {
        if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
          res
            .writeHead(404, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: { message: 'not found' } }));
          return;
        }
        const request = RequestSchema.parse(JSON.parse(text));
        this.requests.push(request);
        const step = this.script[this.next++];
        if (!step) {
          res
            .writeHead(500, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: { message: `the fake's script has no reply ${this.next}` } }));
          return;
        }
        const reply = typeof step === 'function' ? step(request) : step;
        const calls = (reply.toolCalls ?? []).map((c, i) => ({
          id: `call_${this.next}_${i}`,
          type: 'function',
          function: {
            name: c.name,
            arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
          },
        }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: `fake-${this.next}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: request.model,
            choices: [
              {
                index: 0,
                finish_reason: calls.length ? 'tool_calls' : 'stop',
                message: {
                  role: 'assistant',
                  content: reply.content ?? null,
                  ...(calls.length ? { tool_calls: calls } : {}),
                },
              },
            ],
            usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: reply.totalTokens ?? 100 },
          }),
        );
      });
    });
  }

  static async start(script: Responder[]): Promise<FakeChatServer> {
    const s = new FakeChatServer(script);
    await new Promise<void>((r) => s.server.listen(0, '127.0.0.1', () => r()));
    return s;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** Replies given so far. */
  get served(): number {
    return this.next;
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}
