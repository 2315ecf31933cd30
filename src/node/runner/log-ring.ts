// A bounded ring of recent items (a client's last log lines): O(1) push, oldest dropped first.

export class LogRing<T> {
  private readonly items: T[] = [];
  private head = 0;
  private dropped = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  }

  push(item: T): void {
    if (this.items.length < this.capacity) {
      this.items.push(item);
      return;
    }
    this.items[this.head] = item;
    this.head = (this.head + 1) % this.capacity;
    this.dropped++;
  }

  /** Items oldest first. */
  toArray(): T[] {
    return [...this.items.slice(this.head), ...this.items.slice(0, this.head)];
  }

  get size(): number {
    return this.items.length;
  }

  /** How many items were pushed out since creation. */
  get droppedCount(): number {
    return this.dropped;
  }
}
