// Server-sent events with names (`event: <type>` + `data: <json>`), as the Responses and Messages
// APIs stream them. The response is taken over (hijacked) on the first event only, so errors
// before it stay ordinary JSON answers; writes after the client left are dropped.
import type { FastifyReply } from 'fastify';
import type { ServerResponse } from 'node:http';

export class NamedSseWriter {
  started = false;

  constructor(
    private readonly reply: FastifyReply,
    private readonly res: ServerResponse,
  ) {}

  send(event: string, data: unknown): void {
    if (!this.started) {
      this.started = true;
      this.reply.hijack();
      this.res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
    }
    if (!this.res.writableEnded && !this.res.destroyed)
      this.res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  end(): void {
    if (!this.res.writableEnded && !this.res.destroyed) this.res.end();
  }
}
