// The live run's batch filling toward the strategy's threshold, with the pool and the worker state.
import type { Session } from '../../../../shared/workbench-api';
import { batchFill } from '../../charts/series';
import { ChartCard, Empty } from './chart-parts';

export function BatchFillCard({ session, live }: { session: Session | null; live: boolean }) {
  const progress = live ? (session?.progress ?? null) : null;
  const fill = batchFill(progress);
  return (
    <ChartCard title="Batch fill" testId="chart-batch" points={fill ? 1 : 0} span={2}>
      {fill && session && progress ? (
        <div className="batch-fill">
          <div className="batch-numbers">
            <span className="big mono">{progress.current}</span>
            <span className="muted">
              / {progress.target} {progress.unit}
            </span>
            <span className="pill">{progress.strategy}</span>
            {fill.ready ? <span className="pill pill-live">ready — updating</span> : null}
          </div>
          <div className={`meter big${fill.ready ? ' ready' : ''}`}>
            <span className="meter-fill" style={{ width: `${fill.fraction * 100}%` }} />
          </div>
          <div className="muted">{fill.detail}</div>
          <div className="batch-meta">
            <span>
              pool <span className="mono">{session.poolEpisodes}</span> episodes
            </span>
            <span>
              state <span className="mono">{session.state}</span>
            </span>
          </div>
        </div>
      ) : (
        <Empty text={live ? 'Waiting for batch progress…' : 'Batch fill is shown for the live run.'} />
      )}
    </ChartCard>
  );
}
