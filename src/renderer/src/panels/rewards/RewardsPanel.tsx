// Rewards: the learned-reward loop of the viewed run — the label queue, the labels (import/export),
// reward models (train, list, deploy into the live run) and the reward model's score charted against
// the verifiable reward.
import { useCallback, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/workbench-api';
import { RewardModelChart } from '../charts/RewardModelChart';
import { LabelQueueView } from './LabelQueueView';
import { LabelsCard } from './LabelsCard';
import { RewardModelsCard } from './RewardModelsCard';
import './rewards.css';

export interface RewardsPanelProps {
  api: WorkbenchApi;
  active: boolean;
  runId: string | null;
  live: boolean;
  /** Bumps as training goes on (the chart reloads). */
  refreshKey: string;
}

export function RewardsPanel({ api, active, runId, live, refreshKey }: RewardsPanelProps) {
  const [labelTick, setLabelTick] = useState(0);
  const onLabelled = useCallback(() => setLabelTick((t) => t + 1), []);
  if (!runId) return <div className="chart-empty">No run: connect to a worker or open a past run.</div>;
  return (
    <div className="rewards">
      <div className="panel-head">
        <h2>Rewards</h2>
        <span className="muted">
          run <span className="mono">{runId}</span>{' '}
          {live ? <span className="pill pill-live">live</span> : <span className="pill">stored</span>}
        </span>
      </div>
      <div className="rw-grid">
        <div className="rw-main">
          {active && <LabelQueueView key={runId} api={api} runId={runId} onLabelled={onLabelled} />}
        </div>
        <div className="rw-side-col">
          {/* Reloaded when shown, on the run's progress and after a label: a run being connected is not in
              the store yet. */}
          <LabelsCard
            api={api}
            runId={runId}
            refreshKey={`${active}:${refreshKey}:${labelTick}`}
            onChanged={onLabelled}
          />
          <RewardModelsCard api={api} runId={runId} live={live} refreshKey={`${active}:${refreshKey}`} />
        </div>
      </div>
      <RewardModelChart api={api} runId={runId} active={active} refreshKey={refreshKey} />
    </div>
  );
}
