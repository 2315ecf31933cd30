// A trial's bookkeeping around its run: who chose it, its row when it starts, its final state and
// what the optimiser is told about it.
import type { Params } from '../../shared/campaign/space';
import type { TrialRow } from '../../shared/campaign/trials';
import type { OptunaClient } from './optuna-client';
import type { TrialOutcome } from './trial-run';

/** A trial as Optuna hands it out: its number, parameters and our attributes (seed, source, rationale). */
export interface AskedTrial {
  number: number;
  params: Params;
  attrs: Record<string, unknown>;
}

/** Who chose the trial: a re-run, the agent, another seed of a configuration, or the optimiser. */
export function trialSource(attrs: Record<string, unknown>): TrialRow['source'] {
  if (typeof attrs['rerunOf'] === 'number') return 'rerun';
  const chosenBy = attrs['source'];
  return chosenBy === 'agent' || chosenBy === 'seed' ? chosenBy : 'optimizer';
}

/** The row of a trial that starts now. */
export function startedRow(
  campaignId: string,
  asked: AskedTrial,
  o: { seed: number; source: TrialRow['source']; worker: string },
): TrialRow {
  return {
    campaignId,
    number: asked.number,
    state: 'running',
    params: asked.params,
    seed: o.seed,
    source: o.source,
    rationale: typeof asked.attrs['rationale'] === 'string' ? asked.attrs['rationale'] : null,
    value: null,
    points: [],
    note: null,
    worker: o.worker,
    runDir: null,
    steps: 0,
    startedAt: Date.now(),
    endedAt: null,
  };
}

/** The trial's final state in the store (a stopped trial counts as pruned). */
export const trialState = (out: TrialOutcome): TrialRow['state'] =>
  out.state === 'stopped' ? 'pruned' : out.state === 'complete' ? 'complete' : out.state;

/** Tells the optimiser how the trial ended; an interrupted trial stays running in the study, so it re-runs. */
export async function tellOptimizer(
  optuna: OptunaClient,
  number: number,
  state: TrialRow['state'],
  out: TrialOutcome,
): Promise<void> {
  if (state === 'complete' && out.value !== null)
    await optuna.tell(number, 'complete', out.value, { wallS: out.seconds, steps: out.steps });
  else if (state === 'pruned')
    await optuna.tell(number, 'pruned', null, { note: out.note ?? '', wallS: out.seconds, steps: out.steps });
  else if (state === 'failed') await optuna.tell(number, 'fail', null, { error: out.note ?? '', wallS: out.seconds });
}
