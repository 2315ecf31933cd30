// `agentjet train` and the benchmarks follow a worker's events through the workbench's EventFeed:
// every message parsed with the shared zod schemas (unparseable ones reported, never trusted), and
// a lost connection resumed with `?since=` so no step is missed.
import { EventFeed, type EventFeedHandlers } from '../node/event-feed';

export interface EventsSubscription {
  close(): void;
}

export type EventHandlers = EventFeedHandlers;

/** Connects to `<url>/swarm/v1/events`; resolves once the server's hello arrived. */
export function subscribeEvents(url: string, adminToken: string, h: EventHandlers): Promise<EventsSubscription> {
  return EventFeed.open(url, adminToken, h);
}
