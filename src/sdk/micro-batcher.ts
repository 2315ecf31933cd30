// A micro-batcher: concurrent single requests are run together, up to `maxBatch` at a time. Requests
// made in the same tick go out in one batch; requests made while a batch runs wait and go out together
// in the next one (as a decode loop gathers its next round) — so there is no timer and no added delay
// for a lone request. Pure apart from setImmediate; the batch function is given.
export class MicroBatcher<I, O> {
  private queue: { input: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  private running = false;
  private scheduled = false;
  private closed = false;

  constructor(
    private readonly run: (inputs: I[]) => Promise<O[]>,
    private readonly maxBatch: number,
  ) {
    if (!Number.isInteger(maxBatch) || maxBatch < 1)
      throw new Error(`maxBatch must be a positive integer, got ${maxBatch}`);
  }

  submit(input: I): Promise<O> {
    if (this.closed) return Promise.reject(new Error('the batcher is closed'));
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      this.schedule();
    });
  }

  /** Rejects what is queued (a batch in flight still completes). */
  close(reason = 'the batcher is closed'): void {
    this.closed = true;
    for (const r of this.queue.splice(0)) r.reject(new Error(reason));
  }

  private schedule(): void {
    if (this.running || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const out = await this.run(batch.map((b) => b.input));
          if (out.length !== batch.length)
            throw new Error(`batch function returned ${out.length} results for ${batch.length} inputs`);
          batch.forEach((b, i) => b.resolve(out[i]!));
        } catch (err) {
          for (const b of batch) b.reject(err);
        }
      }
    } finally {
      this.running = false;
    }
  }
}
