// Subscribes to a worker's events WebSocket (admin token) and hands each message, parsed with the
// shared zod schemas, to a callback; unparseable messages are reported, never trusted.
import WebSocket from 'ws';
import { HelloMessageSchema, SwarmEventSchema, type HelloMessage, type SwarmEvent } from '../shared/swarm-events';

export interface EventsSubscription {
  close(): void;
}

export interface EventHandlers {
  hello?: (h: HelloMessage) => void;
  event: (e: SwarmEvent) => void;
  error?: (message: string) => void;
}

/** Connects to `<url>/swarm/v1/events`; resolves once the server's hello arrived. */
export function subscribeEvents(url: string, adminToken: string, h: EventHandlers): Promise<EventsSubscription> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/swarm/v1/events`, { headers: { authorization: `Bearer ${adminToken}` } });
  return new Promise((resolve, reject) => {
    let greeted = false;
    ws.on('message', (data: WebSocket.RawData) => {
      let raw: unknown;
      try {
        raw = JSON.parse(data.toString());
      } catch {
        h.error?.('events: a message was not JSON');
        return;
      }
      const hello = HelloMessageSchema.safeParse(raw);
      if (hello.success) {
        h.hello?.(hello.data);
        if (!greeted) {
          greeted = true;
          resolve({ close: () => ws.close() });
        }
        return;
      }
      const ev = SwarmEventSchema.safeParse(raw);
      if (ev.success) h.event(ev.data);
      else h.error?.(`events: unexpected message: ${ev.error.message.slice(0, 200)}`);
    });
    ws.on('error', (err) => {
      if (!greeted) reject(err);
      else h.error?.(`events: ${err.message}`);
    });
  });
}
