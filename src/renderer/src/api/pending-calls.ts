// Calls awaiting a reply, matched by id. Pure bookkeeping: no sockets, no timers.
import { WorkbenchError, type WireError, type WorkbenchMethod } from '../../../shared/workbench-api';

interface Pending {
  method: WorkbenchMethod;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

export class PendingCalls {
  private nextId = 1;
  private readonly calls = new Map<number, Pending>();

  get size(): number {
    return this.calls.size;
  }

  /** Registers a call; returns its id and the promise its reply settles. */
  add(method: WorkbenchMethod): { id: number; promise: Promise<unknown> } {
    const id = this.nextId++;
    const promise = new Promise<unknown>((resolve, reject) => this.calls.set(id, { method, resolve, reject }));
    return { id, promise };
  }

  has(id: number): boolean {
    return this.calls.has(id);
  }

  /** Settles the call with this id; false when no such call is pending (a late or foreign reply). */
  resolve(id: number, result: unknown): boolean {
    const p = this.calls.get(id);
    if (!p) return false;
    this.calls.delete(id);
    p.resolve(result);
    return true;
  }

  reject(id: number, error: WireError): boolean {
    const p = this.calls.get(id);
    if (!p) return false;
    this.calls.delete(id);
    p.reject(new WorkbenchError(error.code, error.message));
    return true;
  }

  /** Fails every pending call (the socket dropped); each error names its method. */
  failAll(code: string, message: string): number {
    const all = [...this.calls.values()];
    this.calls.clear();
    for (const p of all) p.reject(new WorkbenchError(code, `${p.method}: ${message}`));
    return all.length;
  }
}
