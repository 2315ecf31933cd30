// The one server-sent-events writer of the inference APIs: OpenAI chat completions stream bare
// `data:` chunks closed by `data: [DONE]`; the Responses and Messages APIs name each event
// (`event: <type>` + `data: <json>`). The response is taken over (hijacked) on the first event only,
// so errors before it stay ordinary JSON answers; writes after the client left are dropped.
import type { FastifyReply } from 'fastify';

export class SseWriter {
  started = false;

  constructor(private readonly reply: FastifyReply) {}

  /** Sends one event: `event: <name>` when named, then its data as JSON. */
  send(data: unknown, event?: string): void {
    const res = this.reply.raw;
    if (!this.started) {
      this.started = true;
      this.reply.hijack();
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
    }
    if (!res.writableEnded && !res.destroyed)
      res.write(`${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`);
  }

  /** Ends the stream, after a last raw `data:` line when given (OpenAI's `[DONE]`). */
  end(last?: string): void {
    const res = this.reply.raw;
    if (!res.writableEnded && !res.destroyed) res.end(last === undefined ? undefined : `data: ${last}\n\n`);
  }
}
