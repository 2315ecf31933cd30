// `--tensorboard DIR`: the worker's step metrics, merge statistics and eval results appended as
// TensorBoard event records (src/shared/tensorboard) to one events file per worker start in DIR,
// written as they happen (a run resumed later adds a file; TensorBoard reads them together). An
// eval result is written once its weight version is complete — when a later version reports, or
// when the sink closes — so each version is one point.
import { appendFileSync, mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import {
  eventFileName,
  fileVersionRecord,
  scalarsRecord,
  type Scalar,
} from '../../../src/shared/tensorboard/event-file';
import { evalScalars, mergeScalars, stepScalars } from '../../../src/shared/tensorboard/run-scalars';
import type { SwarmEvent } from '../../../src/shared/swarm-events';
import type { EvalResult } from '../../../src/shared/swarm-protocol';

export class TensorBoardSink {
  readonly file: string;
  private pendingEval: EvalResult | null = null;
  private closed = false;

  constructor(
    dir: string,
    private readonly now: () => number = Date.now,
  ) {
    mkdirSync(dir, { recursive: true });
    const wall = now() / 1000;
    this.file = join(dir, eventFileName(wall, hostname(), `.${process.pid}.agentjet`));
    appendFileSync(this.file, fileVersionRecord(wall));
  }

  private write(step: number, scalars: readonly Scalar[]): void {
    const rec = scalarsRecord(this.now() / 1000, step, scalars);
    if (rec && !this.closed) appendFileSync(this.file, rec);
  }

  private flushEval(): void {
    if (this.pendingEval) this.write(this.pendingEval.weightVersion, evalScalars(this.pendingEval));
    this.pendingEval = null;
  }

  onEvent(e: SwarmEvent): void {
    if (e.type === 'step') {
      this.write(e.metrics.step, stepScalars(e.metrics));
      if (e.merge) this.write(e.metrics.step, mergeScalars(e.merge));
    } else if (e.type === 'eval_result') {
      if (this.pendingEval && this.pendingEval.weightVersion !== e.result.weightVersion) this.flushEval();
      this.pendingEval = e.result;
    }
  }

  close(): void {
    if (this.closed) return;
    this.flushEval();
    this.closed = true;
  }
}
