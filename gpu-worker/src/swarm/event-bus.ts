// The worker's one event sink: every change goes into the event log (sequence-numbered, kept for
// viewers that reconnect) and out to live listeners (the events WebSocket); log lines go to the
// log sink and out as `log` events. The swarm and the trainer both emit through it.
import type { SwarmEvent, SwarmEventBody } from '../../../src/shared/swarm-events';
import { EventLog } from './event-log';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** What a part of the worker needs to report: events and log lines. */
export interface EventSink {
  emit(body: SwarmEventBody): void;
  log(level: LogLevel, source: string, message: string): void;
}

export class EventBus implements EventSink {
  readonly events: EventLog;
  private readonly listeners = new Set<(e: SwarmEvent) => void>();

  constructor(
    private readonly sink: ((line: string) => void) | undefined,
    now: () => number = Date.now,
    capacity = 10_000,
  ) {
    this.events = new EventLog(capacity, now);
  }

  emit(body: SwarmEventBody): void {
    const event = this.events.append(body);
    for (const listener of this.listeners) listener(event);
  }

  onEvent(listener: (e: SwarmEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  log(level: LogLevel, source: string, message: string): void {
    this.sink?.(`[${level}] ${source}: ${message}`);
    this.emit({ type: 'log', level, source, message });
  }

  dispose(): void {
    this.listeners.clear();
  }
}
