// Held-out evaluation for local runs of a bundled example: plays `episodes` eval episodes once at
// the start and after every `every` training steps (one eval at a time; a step that comes while one
// runs is caught up by the next), reusing `agentjet train`'s eval player. The worker turns the
// eval episodes into `eval_result` events, which the WorkerService charts.
import { runEval } from '../eval';
import type { TaskKey } from '../tasks';

export interface EvalLoopOptions {
  url: string;
  joinToken: string;
  task: TaskKey;
  episodes: number;
  every: number;
  log: (line: string) => void;
  /** The player (default runEval), replaceable in unit tests. */
  play?: typeof runEval;
}

export class EvalLoop {
  private running: Promise<void> | null = null;
  private lastEvalStep = -1;
  private wanted: number | null = null;
  private stopped = false;

  constructor(private readonly o: EvalLoopOptions) {}

  /** The first eval, before any training step. */
  start(): void {
    this.request(0);
  }

  /** Called after each training step. */
  onStep(step: number): void {
    if (step > 0 && step % this.o.every === 0) this.request(step);
  }

  /** Resolves when no eval is running. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  stop(): void {
    this.stopped = true;
    this.wanted = null;
  }

  private request(step: number): void {
    if (this.stopped || this.o.episodes <= 0 || step <= this.lastEvalStep) return;
    this.wanted = step;
    if (!this.running) this.running = this.loop().finally(() => (this.running = null));
  }

  private async loop(): Promise<void> {
    while (this.wanted !== null && !this.stopped) {
      const step = this.wanted;
      this.wanted = null;
      this.lastEvalStep = step;
      try {
        const r = await (this.o.play ?? runEval)(this.o.url, this.o.joinToken, this.o.episodes, this.o.task, 2);
        this.o.log(
          `eval after step ${step}: ${r.episodes} episodes, success ${(r.successRate * 100).toFixed(1)}%, reward ` +
            `${r.rewardMean.toFixed(3)}`,
        );
      } catch (err) {
        this.o.log(`eval after step ${step} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
}
