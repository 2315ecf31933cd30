// A minimal typed event emitter whose subscriptions are disposables (STYLE habit 6).

export interface Disposable {
  dispose(): void;
}

type Listener<T> = (payload: T) => void;
type ListenerSets<Events> = { [K in keyof Events]?: Set<Listener<Events[K]>> };

export class TypedEmitter<Events extends object> {
  private listeners: ListenerSets<Events> = {};

  on<K extends keyof Events>(name: K, listener: Listener<Events[K]>): Disposable {
    const owned: Set<Listener<Events[K]>> = this.listeners[name] ?? new Set();
    this.listeners[name] = owned;
    owned.add(listener);
    return { dispose: () => void owned.delete(listener) };
  }

  emit<K extends keyof Events>(name: K, payload: Events[K]): void {
    const set = this.listeners[name];
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(payload);
      } catch (err) {
        // A faulty listener must not break supervision; report it and carry on.
        console.error(`[runner] listener for ${String(name)} threw:`, err);
      }
    }
  }

  get listenerCount(): number {
    let n = 0;
    for (const set of Object.values(this.listeners)) if (set instanceof Set) n += set.size;
    return n;
  }

  /** Drops every listener (used by dispose()). */
  clear(): void {
    this.listeners = {};
  }
}
