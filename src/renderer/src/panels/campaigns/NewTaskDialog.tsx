// "New task from description": the researcher's LLM (endpoint, key, model) writes a task folder
// from a plain-language description; `task check` judges every round and its failures go back.
// Each round's verdict and diff are shown; a passing task opens in the editor for review.
import { useState } from 'react';
import type { TaskDraftResult } from '../../../../shared/task-draft';
import type { WorkbenchApi } from '../../../../shared/workbench-api';
import { errorMessage } from '../../store/toasts';

export function NewTaskDialog({
  api,
  onClose,
  onOpen,
}: {
  api: WorkbenchApi;
  onClose: () => void;
  onOpen: (dir: string) => void;
}) {
  const draft = useTaskDraft(api);
  return (
    <div className="dialog-backdrop" role="dialog" aria-label="New task from description" data-testid="new-task-dialog">
      <div className="card dialog">
        <div className="panel-head">
          <h3>New task from description</h3>
          <span className="sb-spacer" />
          <button type="button" className="btn btn-small" onClick={onClose}>
            Close
          </button>
        </div>
        <TaskForm draft={draft} />
        {draft.error ? (
          <div className="card error-card" role="alert">
            {draft.error}
          </div>
        ) : null}
        {draft.result ? <DraftRounds result={draft.result} onOpen={onOpen} /> : null}
      </div>
    </div>
  );
}

/** The dialog's form and the draft request: busy while the LLM writes and `task check` judges. */
function useTaskDraft(api: WorkbenchApi) {
  const [form, setForm] = useState({
    dir: '',
    description: '',
    endpoint: 'http://127.0.0.1:11434/v1',
    apiKey: '',
    model: '',
    rounds: 3,
    smoke: 3,
  });
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<TaskDraftResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) =>
    setForm({ ...form, [k]: k === 'rounds' || k === 'smoke' ? Number(e.target.value) : e.target.value });
  const submit = (): void => {
    setBusy(true);
    setError(null);
    setResult(null);
    api
      .taskDraft({
        dir: form.dir.trim(),
        description: form.description,
        llm: { endpoint: form.endpoint.trim(), apiKey: form.apiKey, model: form.model.trim() },
        rounds: form.rounds,
        smokeEpisodes: form.smoke,
      })
      .then(
        (r) => {
          setResult(r);
          setBusy(false);
        },
        (err: unknown) => {
          setError(errorMessage(err));
          setBusy(false);
        },
      );
  };
  return { form, set, busy, result, error, submit };
}

function TaskForm({ draft }: { draft: ReturnType<typeof useTaskDraft> }) {
  const { form, set, busy, submit } = draft;
  return (
    <div className="form">
      <label className="field">
        Folder (absolute; created)
        <input
          className="input"
          data-testid="task-dir"
          value={form.dir}
          onChange={set('dir')}
          placeholder="/home/me/tasks/my-task"
        />
      </label>
      <label className="field">
        What the agent should learn
        <textarea
          className="input"
          data-testid="task-description"
          rows={5}
          value={form.description}
          onChange={set('description')}
          placeholder="e.g. Convert a temperature in Celsius to Fahrenheit and answer as #### N"
        />
      </label>
      <div className="form-grid">
        <label className="field">
          LLM endpoint
          <input className="input" value={form.endpoint} onChange={set('endpoint')} />
        </label>
        <label className="field">
          Model
          <input className="input" value={form.model} onChange={set('model')} />
        </label>
        <label className="field">
          API key
          <input className="input" type="password" value={form.apiKey} onChange={set('apiKey')} />
        </label>
        <label className="field">
          Rounds
          <input className="input" type="number" min={1} max={10} value={form.rounds} onChange={set('rounds')} />
        </label>
        <label className="field">
          Smoke episodes
          <input className="input" type="number" min={0} max={20} value={form.smoke} onChange={set('smoke')} />
        </label>
      </div>
      <div className="form-actions">
        <button
          type="button"
          className="btn btn-primary"
          disabled={busy || !form.dir || form.description.length < 10 || !form.model}
          onClick={submit}
        >
          {busy ? 'Writing and checking…' : 'Write the task'}
        </button>
      </div>
    </div>
  );
}

function DraftRounds({ result, onOpen }: { result: TaskDraftResult; onOpen: (dir: string) => void }) {
  return (
    <div className="task-rounds" data-testid="task-rounds">
      <p>
        {result.ok
          ? `The task passes its check after ${result.rounds.length} round(s).`
          : `No passing task: ${result.note ?? ''}`}
      </p>
      {result.rounds.map((r) => (
        <details key={r.round} open={r.round === result.rounds.length}>
          <summary>
            Round {r.round}: {r.verdict.ok ? 'passed' : `${r.verdict.failures.length} failure(s)`} · {r.tokens} tokens
          </summary>
          {r.verdict.failures.map((f, i) => (
            <div key={i} className="warn mono">
              [{f.check}] {f.file ? `${f.file}${f.line ? `:${f.line}` : ''}: ` : ''}
              {f.message}
            </div>
          ))}
          <pre className="diff">{r.diff}</pre>
        </details>
      ))}
      {result.ok ? (
        <button type="button" className="btn btn-primary" onClick={() => onOpen(result.dir)}>
          Open in the editor
        </button>
      ) : null}
    </div>
  );
}
