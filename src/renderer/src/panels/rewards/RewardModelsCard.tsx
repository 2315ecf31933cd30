// The run's reward models: train one on the labels (loss, epochs, learning rate, held-out share) in the
// engine's reward-model process with live progress, every version with its held-out accuracy and ONNX
// parity, and Deploy — the live run's reward code is pointed at it and its clients hot-swapped.
import { useEffect, useState } from 'react';
import type { RewardModelRow, RmTrainingStatus } from '../../../../shared/rewards-api';
import type { WorkbenchApi } from '../../../../shared/workbench-api';
import { dateTime, percent } from '../../format';
import { errorMessage } from '../../store/toasts';
import { lossOf, parseTrainFields, TRAIN_DEFAULTS, type TrainFields } from './rm-train-form';

function ModelsTable({
  models,
  live,
  onDeploy,
}: {
  models: readonly RewardModelRow[];
  live: boolean;
  onDeploy: (version: number) => void;
}) {
  return (
    <table className="rw-table">
      <thead>
        <tr>
          <th>version</th>
          <th>trained</th>
          <th>loss</th>
          <th>labels</th>
          <th>held-out acc.</th>
          <th>|ONNX−PyTorch|</th>
          <th>took</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {models.map((m) => (
          <tr key={m.version} data-testid="rm-row">
            <td className="mono">v{m.version}</td>
            <td>{dateTime(m.createdAt)}</td>
            <td>{m.loss}</td>
            <td className="mono">
              {m.pointLabels} + {m.pairLabels}
            </td>
            <td className="mono" title={`${m.heldoutLabels} held-out labels`}>
              {percent(m.heldoutAccuracy)}
            </td>
            <td className="mono">{m.onnxMaxAbsDiff.toExponential(1)}</td>
            <td className="mono">{m.trainSeconds.toFixed(0)} s</td>
            <td>
              <button
                type="button"
                disabled={!live}
                title={
                  live
                    ? "point the live run's reward code at this model and hot-swap the clients"
                    : 'deploy into the live run'
                }
                onClick={() => onDeploy(m.version)}
              >
                {m.deployedAt ? 'redeploy' : 'deploy'}
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function RewardModelsCard({
  api,
  runId,
  live,
  refreshKey,
}: {
  api: WorkbenchApi;
  runId: string;
  live: boolean;
  refreshKey: string;
}) {
  const { models, status, loadError, reload } = useRewardModels(api, runId, refreshKey);
  const [note, setNote] = useState<string | null>(null);

  const train = (fields: TrainFields): void => {
    setNote(null);
    const parsed = parseTrainFields(fields);
    if (!parsed.ok) return setNote(parsed.error);
    api.trainRewardModel({ runId, ...parsed.settings }).then(
      (r) => setNote(`training v${r.version}…`),
      (err: unknown) => setNote(errorMessage(err)),
    );
  };

  const deploy = (version: number): void => {
    setNote(null);
    api.deployRewardModel({ runId, version }).then(
      (r) => {
        setNote(`v${version} deployed: clients hot-swapped to code version ${r.codeVersion}`);
        reload();
      },
      (err: unknown) => setNote(`deploy failed: ${errorMessage(err)}`),
    );
  };

  const training = status?.state === 'training';
  return (
    <div className="card rw-models" data-testid="reward-models" data-models={models.length}>
      <div className="rw-head">
        <span className="chart-title">Reward models</span>
      </div>
      <TrainForm training={training} onTrain={train} />
      {status && <TrainingStatus status={status} />}
      <ModelsTable models={models} live={live} onDeploy={deploy} />
      {models.length === 0 && <div className="muted">No reward model yet.</div>}
      {note && (
        <div className="muted" role="status">
          {note}
        </div>
      )}
      {loadError && (
        <div className="muted" role="status">
          {loadError}
        </div>
      )}
    </div>
  );
}

/** The run's reward models and the training in progress, reloaded when a training ends and on `reload`. */
function useRewardModels(api: WorkbenchApi, runId: string, refreshKey: string) {
  const [models, setModels] = useState<RewardModelRow[]>([]);
  const [status, setStatus] = useState<RmTrainingStatus | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    let on = true;
    api.rewardModels({ runId }).then(
      (r) => {
        if (!on) return;
        setModels(r.models);
        setStatus(r.training);
        setLoadError(null);
      },
      (err: unknown) => on && setLoadError(errorMessage(err)),
    );
    return () => {
      on = false;
    };
  }, [api, runId, tick, refreshKey]);

  useEffect(
    () =>
      api.onEvent((e) => {
        if (e.type !== 'reward_model' || e.runId !== runId) return;
        setStatus(e.status);
        if (e.status.state !== 'training') setTick((t) => t + 1);
      }),
    [api, runId],
  );
  return { models, status, loadError, reload: () => setTick((t) => t + 1) };
}

function TrainForm({ training, onTrain }: { training: boolean; onTrain: (fields: TrainFields) => void }) {
  const [fields, setFields] = useState<TrainFields>(TRAIN_DEFAULTS);
  const set = (k: 'epochs' | 'lr' | 'heldout') => (e: { target: { value: string } }) =>
    setFields((f) => ({ ...f, [k]: e.target.value }));
  return (
    <div className="rw-row">
      <select
        value={fields.loss}
        onChange={(e) => setFields((f) => ({ ...f, loss: lossOf(e.target.value) }))}
        aria-label="loss"
      >
        <option value="pairwise">pairwise (Bradley–Terry)</option>
        <option value="pointwise">pointwise (good/bad)</option>
        <option value="both">both</option>
      </select>
      <label>
        epochs <input value={fields.epochs} onChange={set('epochs')} size={3} />
      </label>
      <label>
        lr <input value={fields.lr} onChange={set('lr')} size={6} />
      </label>
      <label>
        held-out <input value={fields.heldout} onChange={set('heldout')} size={4} />
      </label>
      <button type="button" onClick={() => onTrain(fields)} disabled={training} data-testid="rm-train">
        train
      </button>
    </div>
  );
}

function TrainingStatus({ status }: { status: RmTrainingStatus }) {
  const training = status.state === 'training';
  return (
    <div className={`rw-status ${status.state}`} data-testid="rm-status" data-state={status.state}>
      v{status.version} {status.state}
      {status.fraction !== null && training ? ` ${Math.round(status.fraction * 100)}%` : ''} — {status.detail}
      {training && (
        <div className="meter">
          <span className="meter-fill" style={{ width: `${(status.fraction ?? 0) * 100}%` }} />
        </div>
      )}
    </div>
  );
}
