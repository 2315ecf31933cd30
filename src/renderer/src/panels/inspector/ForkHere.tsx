// "Fork here" on a recorded call: K continuations of its exact prompt ids with the live worker's
// current weights (optionally after editing the last tool/user message), never trained; shown
// side by side with the recorded turn (ForkResultView), and savable as a probe (docs/inner-loop.md).
import { useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/workbench-api';
import { DEFAULT_FORK_FORM, forkParams, probeSpec, type ForkAnswer, type ForkForm, type ForkParams } from './fork-view';
import { ForkResultView } from './ForkResultView';
import './inner-loop.css';

type ForkState =
  | { kind: 'idle' }
  | { kind: 'running' }
  | { kind: 'done'; params: ForkParams; result: ForkAnswer }
  | { kind: 'error'; message: string };

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export interface ForkHereProps {
  api: WorkbenchApi;
  runId: string;
  episodeId: string;
  callIndex: number;
  /** Forks sample with the live worker: only the live run's episodes. */
  live: boolean;
}

export function ForkHere(props: ForkHereProps) {
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState<ForkForm>(DEFAULT_FORK_FORM);
  const [state, setState] = useState<ForkState>({ kind: 'idle' });
  const run = async (): Promise<void> => {
    const { runId, episodeId, callIndex } = props;
    const parsed = forkParams(form, { runId, episodeId, callIndex });
    if (!parsed.ok) return setState({ kind: 'error', message: parsed.error });
    setState({ kind: 'running' });
    try {
      setState({ kind: 'done', params: parsed.params, result: await props.api.forkCall(parsed.params) });
    } catch (err) {
      setState({ kind: 'error', message: message(err) });
    }
  };
  if (!open)
    return (
      <button
        type="button"
        className="in-fork-open"
        data-testid="fork-here"
        disabled={!props.live}
        title={props.live ? 'Sample continuations of this exact prefix' : 'Forks sample with the live worker'}
        onClick={() => setOpen(true)}
      >
        Fork here
      </button>
    );
  const set = (patch: Partial<ForkForm>): void => setForm((f) => ({ ...f, ...patch }));
  return (
    <div className="in-fork" data-testid="fork-panel">
      <ForkFormRow form={form} running={state.kind === 'running'} onForm={set} onRun={() => void run()} />
      <button type="button" className="in-fork-close" onClick={() => setOpen(false)}>
        close
      </button>
      {state.kind === 'error' && (
        <p className="in-error" role="alert" data-testid="fork-error">
          {state.message}
        </p>
      )}
      {state.kind === 'done' && <ForkResultView result={state.result} />}
      {state.kind === 'done' && <SaveProbe api={props.api} params={state.params} />}
    </div>
  );
}

function ForkFormRow(p: {
  form: ForkForm;
  running: boolean;
  onForm: (f: Partial<ForkForm>) => void;
  onRun: () => void;
}) {
  const { form } = p;
  return (
    <div className="in-fork-form">
      <label>
        K <input data-testid="fork-k" value={form.k} onChange={(e) => p.onForm({ k: e.target.value })} />
      </label>
      <label>
        temperature <input value={form.temperature} onChange={(e) => p.onForm({ temperature: e.target.value })} />
      </label>
      <label>
        max tokens <input value={form.maxTokens} onChange={(e) => p.onForm({ maxTokens: e.target.value })} />
      </label>
      <label>
        <input type="checkbox" checked={form.editOn} onChange={(e) => p.onForm({ editOn: e.target.checked })} /> edit
        the last tool/user message
      </label>
      {form.editOn && (
        <textarea
          rows={3}
          placeholder="the message's new content"
          value={form.edit}
          onChange={(e) => p.onForm({ edit: e.target.value })}
        />
      )}
      <button type="button" data-testid="fork-run" disabled={p.running} onClick={p.onRun}>
        {p.running ? 'Sampling…' : 'Fork'}
      </button>
    </div>
  );
}

function SaveProbe({ api, params }: { api: WorkbenchApi; params: ForkParams }) {
  const [name, setName] = useState(`${params.episodeId}#${params.callIndex}`);
  const [contains, setContains] = useState('<tool_call>');
  const [note, setNote] = useState<string | null>(null);
  const save = async (): Promise<void> => {
    try {
      const r = await api.saveProbe({ name, spec: probeSpec(params, contains) });
      setNote(`probe “${r.probe.name}” saved: ${r.point.hits}/${r.point.k} hits at w${r.point.weightVersion}`);
    } catch (err) {
      setNote(`could not save the probe: ${message(err)}`);
    }
  };
  return (
    <div className="in-fork-form">
      <label>
        probe <input value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <label>
        hit when a continuation contains <input value={contains} onChange={(e) => setContains(e.target.value)} />
      </label>
      <button type="button" data-testid="fork-save-probe" disabled={!name || !contains} onClick={() => void save()}>
        Save as probe
      </button>
      {note && (
        <span className="in-muted" data-testid="fork-probe-note">
          {note}
        </span>
      )}
    </div>
  );
}
