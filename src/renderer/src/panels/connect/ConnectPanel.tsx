// Connect: launch a local worker (model + example + clients, advanced training settings) or attach
// to a remote one (URL + admin token, optionally running local clients against it); Disconnect.
// The backend's error message is shown as is (`connect-error`).
import { useEffect, useState, type FormEvent } from 'react';
import type { ExampleInfo, Session, WorkbenchApi } from '../../../../shared/workbench-api';
import { activityText } from '../../format';
import { applySession, openRun } from '../../store/state';
import type { AppStore } from '../../store/store';
import { errorMessage } from '../../store/toasts';
import { buildLocalParams, buildRemoteParams, DEFAULT_LOCAL, DEFAULT_REMOTE, type LocalForm, type RemoteForm } from './connect-form';

export interface ConnectPanelProps {
  api: WorkbenchApi;
  store: AppStore;
  session: Session | null;
  /** Whether the transport is up (examples load once it is). */
  online: boolean;
  onPending: (text: string | null) => void;
}

export function ConnectPanel({ api, store, session, online, onPending }: ConnectPanelProps) {
  const [local, setLocal] = useState<LocalForm>(DEFAULT_LOCAL);
  const [remote, setRemote] = useState<RemoteForm>(DEFAULT_REMOTE);
  const [examples, setExamples] = useState<ExampleInfo[]>([]);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!online) return;
    let live = true;
    api.examples({}).then(
      (r) => {
        if (!live) return;
        setExamples(r.examples);
        setLocal((f) => (r.examples.length > 0 && !r.examples.some((e) => e.name === f.example) ? { ...f, example: r.examples[0]!.name } : f));
      },
      (err: unknown) => live && setError(`Could not list the examples: ${errorMessage(err)}`),
    );
    return () => {
      live = false;
    };
  }, [api, online]);

  const run = async (label: string, fn: () => Promise<Session | null>): Promise<void> => {
    setBusy(label);
    setError(null);
    onPending(label);
    try {
      const s = await fn();
      // A session the user just started takes over the view, even from a reopened run.
      store.setState((st) => (s ? openRun(applySession(st, s), s.runId) : applySession(st, s)));
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(null);
      onPending(null);
    }
  };

  const submitLocal = (e: FormEvent): void => {
    e.preventDefault();
    const built = buildLocalParams(local);
    if (!built.ok) return setError(built.error);
    void run('Starting local worker…', () => api.connectLocal(built.params));
  };
  const submitRemote = (e: FormEvent): void => {
    e.preventDefault();
    const built = buildRemoteParams(remote);
    if (!built.ok) return setError(built.error);
    void run('Connecting to remote worker…', () => api.connectRemote(built.params));
  };
  const disconnect = (): void => {
    void run('Disconnecting…', async () => {
      await api.disconnect({});
      return null;
    });
  };

  const selectedExample = examples.find((x) => x.name === local.example);
  const progress = session?.activity ? activityText(session.activity) : busy;

  return (
    <div className="connect">
      <div className="panel-head">
        <h2>Connect</h2>
        <span className="muted">Launch a local trainer worker, or attach to one running elsewhere.</span>
      </div>

      {session ? (
        <div className="card session-card">
          <div className="session-grid">
            <Field label="Run" value={session.runId} mono />
            <Field label="Mode" value={session.mode} />
            <Field label="State" value={session.state} />
            <Field label="Worker" value={session.workerUrl} mono />
            <Field label="Model" value={session.model} />
            <Field label="Example" value={session.example ?? '—'} />
            <Field label="Strategy" value={session.strategy ?? '—'} />
            <Field label="Step" value={String(session.step)} mono />
          </div>
          <button type="button" className="btn btn-danger" data-testid="disconnect" onClick={disconnect} disabled={busy !== null}>
            Disconnect
          </button>
        </div>
      ) : null}

      {progress ? (
        <div className="card progress-card" role="status">
          <span className="spinner" aria-hidden="true" /> {progress}
          {session?.activity?.fraction != null ? (
            <span className="meter">
              <span className="meter-fill" style={{ width: `${session.activity.fraction * 100}%` }} />
            </span>
          ) : null}
        </div>
      ) : null}

      {error ? (
        <div className="card error-card" role="alert" data-testid="connect-error">
          {error}
        </div>
      ) : null}

      <div className="connect-forms">
        <form className="card form" onSubmit={submitLocal} aria-label="Local worker">
          <h3>Local worker</h3>
          <label>
            <span>Model</span>
            <input data-testid="connect-model" value={local.model} onChange={(e) => setLocal({ ...local, model: e.target.value })} placeholder="builtin or /path/to/hf-model" spellCheck={false} />
            <small>“builtin” is the embedded tiny model (trains on CPU); or a local Hugging Face folder.</small>
          </label>
          <label>
            <span>Example</span>
            <select data-testid="connect-example" value={local.example} onChange={(e) => setLocal({ ...local, example: e.target.value })}>
              {examples.length === 0 ? <option value={local.example}>{local.example}</option> : null}
              {examples.map((x) => (
                <option key={x.name} value={x.name}>
                  {x.name}
                </option>
              ))}
            </select>
            <small>{selectedExample?.description ?? ''}</small>
          </label>
          <label>
            <span>Clients</span>
            <input data-testid="connect-clients" type="number" min={0} max={64} value={local.clients} onChange={(e) => setLocal({ ...local, clients: e.target.value })} />
          </label>
          <details className="advanced">
            <summary>Advanced training settings</summary>
            <div className="form-grid">
              <label>
                <span>Strategy</span>
                <select data-testid="connect-strategy" value={local.strategy} onChange={(e) => setLocal({ ...local, strategy: e.target.value })}>
                  <option value="">worker default</option>
                  <option value="C1">C1 — enough episodes</option>
                  <option value="C2">C2 — enough task groups</option>
                  <option value="C3">C3 — groups with reward variance</option>
                  <option value="C4">C4 — any client agrees</option>
                  <option value="C5">C5 — all clients agree</option>
                </select>
              </label>
              <NumField label="Batch" testId="connect-batch" value={local.batch} onChange={(v) => setLocal({ ...local, batch: v })} />
              <NumField label="Group size" testId="connect-group-size" value={local.groupSize} onChange={(v) => setLocal({ ...local, groupSize: v })} />
              <NumField label="Learning rate" testId="connect-lr" value={local.lr} onChange={(v) => setLocal({ ...local, lr: v })} step="any" />
              <NumField label="Max tokens" testId="connect-max-tokens" value={local.maxTokens} onChange={(v) => setLocal({ ...local, maxTokens: v })} />
              <label>
                <span>Training mode</span>
                <select data-testid="connect-train-mode" value={local.trainMode} onChange={(e) => setLocal({ ...local, trainMode: e.target.value })}>
                  <option value="">auto — from model size and memory</option>
                  <option value="full">full fine-tune</option>
                  <option value="lora">LoRA</option>
                </select>
              </label>
              <NumField label="LoRA rank" testId="connect-lora-r" value={local.loraR} onChange={(v) => setLocal({ ...local, loraR: v })} />
              <NumField label="LoRA alpha" testId="connect-lora-alpha" value={local.loraAlpha} onChange={(v) => setLocal({ ...local, loraAlpha: v })} step="any" />
              <label>
                <span>LoRA targets</span>
                <input data-testid="connect-lora-targets" value={local.loraTargets} onChange={(e) => setLocal({ ...local, loraTargets: e.target.value })} placeholder="all linear layers" spellCheck={false} />
              </label>
              <NumField label="Engine ranks (FSDP)" testId="connect-engine-procs" value={local.engineProcs} onChange={(v) => setLocal({ ...local, engineProcs: v })} />
            </div>
          </details>
          <div className="form-actions">
            <button type="submit" className="btn btn-primary" data-testid="connect-local-submit" disabled={busy !== null}>
              Start local worker
            </button>
          </div>
        </form>

        <form className="card form" onSubmit={submitRemote} aria-label="Remote worker">
          <h3>Remote worker</h3>
          <label>
            <span>Worker URL</span>
            <input data-testid="connect-remote-url" value={remote.url} onChange={(e) => setRemote({ ...remote, url: e.target.value })} placeholder="http://gpu-box:8400" spellCheck={false} />
          </label>
          <label>
            <span>Admin token</span>
            <input data-testid="connect-remote-token" type="password" value={remote.adminToken} onChange={(e) => setRemote({ ...remote, adminToken: e.target.value })} autoComplete="off" />
          </label>
          <details className="advanced">
            <summary>Run local clients against it (optional)</summary>
            <div className="form-grid">
              <label>
                <span>Join token</span>
                <input data-testid="connect-remote-join-token" type="password" value={remote.joinToken} onChange={(e) => setRemote({ ...remote, joinToken: e.target.value })} autoComplete="off" />
              </label>
              <label>
                <span>Example</span>
                <select data-testid="connect-remote-example" value={remote.example} onChange={(e) => setRemote({ ...remote, example: e.target.value })}>
                  <option value="">none</option>
                  {examples.map((x) => (
                    <option key={x.name} value={x.name}>
                      {x.name}
                    </option>
                  ))}
                </select>
              </label>
              <NumField label="Clients" testId="connect-remote-clients" value={remote.clients} onChange={(v) => setRemote({ ...remote, clients: v })} />
            </div>
          </details>
          <div className="form-actions">
            <button type="submit" className="btn btn-primary" data-testid="connect-remote-submit" disabled={busy !== null}>
              Attach
            </button>
          </div>
        </form>
      </div>
    </div>
  );
}

function Field({ label, value, mono }: { label: string; value: string; mono?: boolean }) {
  return (
    <div className="field">
      <span className="field-label">{label}</span>
      <span className={`field-value${mono ? ' mono' : ''}`} title={value}>
        {value}
      </span>
    </div>
  );
}

function NumField({ label, testId, value, onChange, step }: { label: string; testId: string; value: string; onChange: (v: string) => void; step?: string }) {
  return (
    <label>
      <span>{label}</span>
      <input data-testid={testId} type="number" step={step} value={value} onChange={(e) => onChange(e.target.value)} placeholder="default" />
    </label>
  );
}
