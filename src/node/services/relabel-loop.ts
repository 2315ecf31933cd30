// Iterated labelling (issue #24 §1): a reward model trained once on a few hundred labels is exploited
// within minutes, so the loop goes round while the policy trains — every `every` policy updates a round
// asks for `perRound` labels on the current policy's least certain episodes (the label queue), a new
// reward-model version is trained on all the labels so far (in its own process) and hot-swapped into the
// clients. One round at a time: updates that come while a round runs are caught up by the next round.
// The parts that act are injected (who answers the labels — a person in the workbench, the verifiable
// reward in the benchmark —, the training, the deploy), so this file is the schedule and the record.

export interface RelabelRound {
  round: number;
  /** The policy update (weight version) the round was due at. */
  atUpdate: number;
  /** Labels the round got. */
  labels: number;
  /** The reward-model version trained and deployed (null when the round failed or got no labels). */
  version: number | null;
  seconds: number;
  error?: string;
}

export interface RelabelLoopOptions {
  /** Policy updates between rounds (the first round is due at `every`). */
  every: number;
  /** Labels asked for per round. */
  perRound: number;
  /**
   * Asks for `limit` labels on the current policy's least certain episodes; resolves with how many it got. The
   * signal aborts when the loop stops (a round waiting for a person gives up).
   */
  label: (round: number, limit: number, signal: AbortSignal) => Promise<number>;
  /** Trains a new reward-model version on every label so far and deploys it; resolves with the version. */
  retrain: (round: number) => Promise<number>;
  log: (line: string) => void;
}

/** Whether a round is due at `updates` (the last round was due at `lastAt`, 0 before the first). */
export const roundDue = (updates: number, lastAt: number, every: number): boolean =>
  every > 0 && updates >= lastAt + every;

export class RelabelLoop {
  readonly rounds: RelabelRound[] = [];
  private lastAt = 0;
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly abort = new AbortController();

  constructor(private readonly o: RelabelLoopOptions) {
    if (!(o.every > 0) || !(o.perRound > 0))
      throw new Error(`relabel loop: every (${o.every}) and perRound (${o.perRound}) must be positive`);
  }

  /** Called with the weight version after each policy update. */
  onStep(updates: number): void {
    if (this.stopped || this.running || !roundDue(updates, this.lastAt, this.o.every)) return;
    this.lastAt = updates;
    this.running = this.round(updates).finally(() => (this.running = null));
  }

  /** Resolves when no round is running. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** No new rounds; resolves when the one running (if any) has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    await this.idle();
  }

  /** Labels the rounds got, all together. */
  get labels(): number {
    return this.rounds.reduce((s, r) => s + r.labels, 0);
  }

  private async round(atUpdate: number): Promise<void> {
    const round = this.rounds.length + 1;
    const t0 = performance.now();
    const record: RelabelRound = { round, atUpdate, labels: 0, version: null, seconds: 0 };
    try {
      this.o.log(`relabel round ${round} (update ${atUpdate}): asking for ${this.o.perRound} labels`);
      record.labels = await this.o.label(round, this.o.perRound, this.abort.signal);
      if (record.labels > 0 && !this.stopped) record.version = await this.o.retrain(round);
    } catch (err) {
      record.error = err instanceof Error ? err.message : String(err);
    }
    record.seconds = (performance.now() - t0) / 1000;
    this.rounds.push(record);
    this.o.log(
      `relabel round ${round}: ${record.labels} labels → ` +
        `${record.version === null ? 'no new model' : `reward model v${record.version} deployed`}` +
        ` in ${record.seconds.toFixed(0)} s${record.error ? ` (failed: ${record.error})` : ''}`,
    );
  }
}
