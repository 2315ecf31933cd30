// The trials of a campaign: state (pruned and failed marked, with why on hover), configuration,
// seed, who chose it, objective, steps, minutes; running ones can be stopped.
import type { TrialRow } from '../../../../shared/campaign/trials';
import { fmtNum } from '../../../../shared/campaign/charts/scales';
import { stateClass, trialMinutes } from './campaign-view';

export function TrialsTable({
  trials,
  params,
  now,
  onStop,
}: {
  trials: readonly TrialRow[];
  params: readonly string[];
  now: number;
  onStop: ((n: number) => void) | null;
}) {
  return (
    <table className="ctable" data-testid="trials-table">
      <thead>
        <tr>
          <th>#</th>
          <th>state</th>
          {params.map((p) => (
            <th key={p}>{p}</th>
          ))}
          <th>seed</th>
          <th>source</th>
          <th className="num">objective</th>
          <th className="num">steps</th>
          <th className="num">min</th>
          <th>worker</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {trials.map((t) => (
          <tr
            key={t.number}
            data-testid="trial-row"
            data-trial={t.number}
            data-state={t.state}
            title={t.note ?? t.rationale ?? ''}
          >
            <td className="mono">{t.number}</td>
            <td>
              <span className={stateClass(t.state)}>{t.state}</span>
              {t.state === 'pruned' ? (
                <span className="pill" data-testid="pruned-mark">
                  pruned
                </span>
              ) : null}
            </td>
            {params.map((p) => (
              <td key={p} className="mono">
                {typeof t.params[p] === 'number' ? fmtNum(t.params[p]) : String(t.params[p] ?? '—')}
              </td>
            ))}
            <td className="mono">{t.seed}</td>
            <td className="muted">{t.source}</td>
            <td className="num mono">{t.value === null ? '—' : fmtNum(t.value)}</td>
            <td className="num mono">{t.steps}</td>
            <td className="num mono">{trialMinutes(t, now)}</td>
            <td className="muted ellipsis">{t.worker}</td>
            <td>
              {onStop && t.state === 'running' ? (
                <button type="button" className="btn btn-small btn-danger" onClick={() => onStop(t.number)}>
                  Stop
                </button>
              ) : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
