// A reward try's verdict: old vs new reward distribution (paired histogram bars), the changed
// episodes by size of change (each opens in the inspector), errors by episode, and the task
// groups that gain or lose signal (all-equal rewards appearing or disappearing).
import type { ChangedEpisode, RewardTryResult } from '../../../../shared/inner-loop';
import { fmtDelta, fmtReward, histogramBars } from './reward-try-view';

const W = 260;
const H = 70;

function Histogram({ result }: { result: RewardTryResult }) {
  const { bars, max } = histogramBars(result);
  if (bars.length === 0 || max === 0) return <p className="ed-muted">No rewards to chart.</p>;
  const slot = W / bars.length;
  const bar = Math.max(1, slot / 2 - 1);
  const h = (n: number): number => (n / max) * (H - 12);
  return (
    <svg className="ed-try-hist" width={W} height={H} role="img" aria-label="old vs new reward distribution">
      {bars.map((b, i) => (
        <g key={i}>
          <title>{`${fmtReward(b.lo)}…${fmtReward(b.hi)}: old ${b.old}, new ${b.new}`}</title>
          <rect className="old" x={i * slot} y={H - 10 - h(b.old)} width={bar} height={h(b.old)} />
          <rect className="new" x={i * slot + bar + 1} y={H - 10 - h(b.new)} width={bar} height={h(b.new)} />
        </g>
      ))}
      <text x={0} y={H - 1}>
        {fmtReward(bars[0]!.lo)}
      </text>
      <text x={W} y={H - 1} textAnchor="end">
        {fmtReward(bars.at(-1)!.hi)}
      </text>
    </svg>
  );
}

function Stats({ label, d }: { label: string; d: RewardTryResult['old'] }) {
  return (
    <div className={`ed-try-stat ${label}`}>
      <span className="ed-try-key">{label}</span> mean {fmtReward(d.mean)} · std {fmtReward(d.std)} · n {d.count}
    </div>
  );
}

export function RewardTryResultView(props: { result: RewardTryResult; onOpen: (c: ChangedEpisode) => void }) {
  const r = props.result;
  const g = r.groups;
  return (
    <div className="ed-try-result" data-testid="reward-try-result" data-changed={r.changed.length}>
      <div className="ed-try-summary">
        <Histogram result={r} />
        <div>
          <Stats label="old" d={r.old} />
          <Stats label="new" d={r.new} />
          <div className="ed-muted">
            {r.scored}/{r.episodes} episodes scored · {r.changed.length} changed · {r.errors.length} errors
            {r.missingTasks > 0 ? ` · ${r.missingTasks} without a task row` : ''}
          </div>
          <div data-testid="reward-try-groups">
            groups ({g.scope === 'last_update' ? 'last update' : 'tried episodes'}, {g.considered} considered): gain
            signal <b>{g.gainSignal.length}</b>
            {g.gainSignal.length > 0 ? ` (${g.gainSignal.slice(0, 5).join(', ')})` : ''}, lose signal{' '}
            <b>{g.loseSignal.length}</b>
            {g.loseSignal.length > 0 ? ` (${g.loseSignal.slice(0, 5).join(', ')})` : ''}
          </div>
        </div>
      </div>
      <div className="ed-try-lists">
        <table className="ed-try-table">
          <thead>
            <tr>
              <th>changed episode</th>
              <th>task</th>
              <th>old</th>
              <th>new</th>
              <th>Δ</th>
            </tr>
          </thead>
          <tbody>
            {r.changed.map((c) => (
              <tr
                key={c.episodeId}
                data-testid="reward-try-changed"
                data-episode-id={c.episodeId}
                title="Open in the inspector"
                onClick={() => props.onOpen(c)}
              >
                <td className="mono">{c.episodeId}</td>
                <td>{c.taskId ?? '—'}</td>
                <td>{fmtReward(c.oldReward)}</td>
                <td>{fmtReward(c.newReward)}</td>
                <td className={(c.delta ?? 0) < 0 ? 'neg' : 'pos'}>{fmtDelta(c.delta)}</td>
              </tr>
            ))}
            {r.changed.length === 0 && (
              <tr>
                <td colSpan={5} className="ed-muted">
                  No episode&apos;s reward or success changed.
                </td>
              </tr>
            )}
          </tbody>
        </table>
        {r.errors.length > 0 && (
          <ul className="ed-try-errors" data-testid="reward-try-errors">
            {r.errors.map((e) => (
              <li key={e.episodeId}>
                <code>{e.episodeId}</code>: {e.error}
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
