// "Try on recorded episodes": the edited reward (the editor's unsaved text) over the live run's
// last N ended episodes, optionally of one task or code version, in a child process on the main
// side (docs/inner-loop.md); the verdict shows under the form (RewardTryResult).
import { useState } from 'react';
import type { RewardTryResult } from '../../../../shared/inner-loop';
import type { CodeVersion, WorkbenchApi } from '../../../../shared/workbench-api';
import { requestInspect, type AppStore } from '../../store/store';
import { codeWorkspace } from './code-workspace';
import { shortVersion } from './editor-model';
import { changedCompare, DEFAULT_TRY_FORM, tryParams, type TryForm } from './reward-try-view';
import { RewardTryResultView } from './RewardTryResult';
import { message } from './use-editor';
import './reward-try.css';

type TryState =
  | { kind: 'idle' }
  | { kind: 'running' }
  | { kind: 'done'; result: RewardTryResult }
  | { kind: 'error'; message: string };

export interface RewardTryPaneProps {
  api: WorkbenchApi;
  store: AppStore;
  runId: string;
  /** The file tried (null: the run has no reward file). */
  path: string | null;
  versions: CodeVersion[];
  onClose: () => void;
}

export function RewardTryPane({ api, store, runId, path, versions, onClose }: RewardTryPaneProps) {
  const [form, setForm] = useState<TryForm>(DEFAULT_TRY_FORM);
  const [state, setState] = useState<TryState>({ kind: 'idle' });
  const run = async (): Promise<void> => {
    if (path === null) return;
    const file = codeWorkspace.get(path);
    const content = file && codeWorkspace.isDirty(path) ? file.model.getValue() : undefined;
    const parsed = tryParams(form, path, content);
    if (!parsed.ok) return setState({ kind: 'error', message: parsed.error });
    setState({ kind: 'running' });
    try {
      setState({ kind: 'done', result: await api.rewardTry(parsed.params) });
    } catch (err) {
      setState({ kind: 'error', message: message(err) });
    }
  };
  const set = (patch: Partial<TryForm>): void => setForm((f) => ({ ...f, ...patch }));
  return (
    <section className="ed-try" data-testid="reward-try" aria-label="Try on recorded episodes">
      <TryFormRow
        path={path}
        form={form}
        versions={versions}
        running={state.kind === 'running'}
        onForm={set}
        onRun={() => void run()}
        onClose={onClose}
      />
      {state.kind === 'error' && (
        <div className="ed-inline-error" role="alert" data-testid="reward-try-error">
          {state.message}
        </div>
      )}
      {state.kind === 'done' && (
        <RewardTryResultView
          result={state.result}
          onOpen={(c) =>
            requestInspect(store, { runId, episodeId: c.episodeId, compare: changedCompare(c, state.result.file) })
          }
        />
      )}
    </section>
  );
}

function TryFormRow(p: {
  path: string | null;
  form: TryForm;
  versions: CodeVersion[];
  running: boolean;
  onForm: (patch: Partial<TryForm>) => void;
  onRun: () => void;
  onClose: () => void;
}) {
  return (
    <div className="ed-try-form">
      <strong>Try on recorded episodes</strong>
      <code className="ed-hash" title={p.path ?? ''}>
        {p.path === null ? 'no reward file' : p.path.split('/').at(-1)}
      </code>
      <label>
        last
        <input
          className="ed-try-n"
          data-testid="reward-try-n"
          value={p.form.last}
          onChange={(e) => p.onForm({ last: e.target.value })}
        />
        episodes
      </label>
      <label>
        task
        <input
          data-testid="reward-try-task"
          placeholder="any"
          value={p.form.task}
          onChange={(e) => p.onForm({ task: e.target.value })}
        />
      </label>
      <label>
        code version
        <select
          data-testid="reward-try-version"
          value={p.form.codeVersion}
          onChange={(e) => p.onForm({ codeVersion: e.target.value })}
        >
          <option value="">any</option>
          {p.versions.map((v) => (
            <option key={v.codeVersion} value={v.codeVersion}>
              {shortVersion(v.codeVersion)}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        className="ed-primary"
        data-testid="reward-try-run"
        disabled={p.path === null || p.running}
        onClick={p.onRun}
      >
        {p.running ? 'Trying…' : 'Try'}
      </button>
      <span className="ed-spacer" />
      <button type="button" className="ed-link" onClick={p.onClose}>
        close
      </button>
    </div>
  );
}
