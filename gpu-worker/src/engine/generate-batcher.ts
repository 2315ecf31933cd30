// Coalesces concurrent generate requests into batched engine calls: requests that arrive while a
// batch is decoding form the next batch (up to maxBatch), so N concurrent agents cost ~1 forward
// per decoding step instead of N.
import type { GenerateRequest, GenerateResult, Generation } from '../../../src/shared/engine-protocol';

export type GenerateFn = (requests: GenerateRequest[]) => Promise<GenerateResult>;

export interface BatchedGeneration {
  generation: Generation;
  weightVersion: number;
  batchSize: number;
}

interface Queued {
  request: GenerateRequest;
  resolve: (value: BatchedGeneration) => void;
  reject: (err: Error) => void;
}

export class GenerateBatcher {
  private queue: Queued[] = [];
  private running = false;
  private scheduled = false;
  batches = 0;
  requests = 0;

  constructor(
    private readonly generate: GenerateFn,
    private readonly maxBatch = 64,
  ) {}

  submit(request: GenerateRequest): Promise<BatchedGeneration> {
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      this.schedule();
    });
  }

  get pending(): number {
    return this.queue.length;
  }

  private schedule(): void {
    if (this.running || this.scheduled) return;
    this.scheduled = true;
    // Let every request issued in the current tick join the batch.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.running || this.queue.length === 0) return;
    this.running = true;
    const batch = this.queue.splice(0, this.maxBatch);
    this.batches += 1;
    this.requests += batch.length;
    try {
      const out = await this.generate(batch.map((q) => q.request));
      if (out.results.length !== batch.length) {
        throw new Error(`engine returned ${out.results.length} generations for ${batch.length} requests`);
      }
      batch.forEach((q, i) => q.resolve({ generation: out.results[i]!, weightVersion: out.weightVersion, batchSize: batch.length }));
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      for (const q of batch) q.reject(error);
    } finally {
      this.running = false;
      if (this.queue.length > 0) this.schedule();
    }
  }
}
