// The remote worker form: URL and admin token, optionally an SSH host to tunnel through and the
// certificate fingerprint of an https worker, a join token, an example and local clients to run against it.
import { useState, type FormEvent } from 'react';
import type { ExampleInfo, RemoteConnect } from '../../../../shared/workbench-api';
import { buildRemoteParams, DEFAULT_REMOTE, type RemoteForm } from './connect-form';
import { NumField, SecretField, SelectField } from './fields';

export interface RemoteWorkerFormProps {
  examples: readonly ExampleInfo[];
  disabled: boolean;
  onSubmit: (params: RemoteConnect) => void;
  onInvalid: (message: string) => void;
}

export function RemoteWorkerForm({ examples, disabled, onSubmit, onInvalid }: RemoteWorkerFormProps) {
  const [form, setForm] = useState<RemoteForm>(DEFAULT_REMOTE);
  const set = (patch: Partial<RemoteForm>): void => setForm((f) => ({ ...f, ...patch }));
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    const built = buildRemoteParams(form);
    if (built.ok) onSubmit(built.params);
    else onInvalid(built.error);
  };
  return (
    <form className="card form" onSubmit={submit} aria-label="Remote worker">
      <h3>Remote worker</h3>
      <label>
        <span>Worker URL</span>
        <input
          data-testid="connect-remote-url"
          value={form.url}
          onChange={(e) => set({ url: e.target.value })}
          placeholder="https://gpu-box:8400"
          spellCheck={false}
        />
      </label>
      <TransportFields form={form} set={set} />
      <SecretField
        label="Admin token"
        testId="connect-remote-token"
        value={form.adminToken}
        onChange={(v) => set({ adminToken: v })}
      />
      <details className="advanced">
        <summary>Run local clients against it (optional)</summary>
        <div className="form-grid">
          <SecretField
            label="Join token"
            testId="connect-remote-join-token"
            value={form.joinToken}
            onChange={(v) => set({ joinToken: v })}
          />
          <SelectField
            label="Example"
            testId="connect-remote-example"
            value={form.example}
            onChange={(v) => set({ example: v })}
          >
            <option value="">none</option>
            {examples.map((x) => (
              <option key={x.name} value={x.name}>
                {x.name}
              </option>
            ))}
          </SelectField>
          <NumField
            label="Clients"
            testId="connect-remote-clients"
            value={form.clients}
            onChange={(v) => set({ clients: v })}
          />
        </div>
      </details>
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" data-testid="connect-remote-submit" disabled={disabled}>
          Attach
        </button>
      </div>
    </form>
  );
}

/** How the worker is reached: an SSH host to tunnel through, and the certificate to trust (https). */
function TransportFields({ form, set }: { form: RemoteForm; set: (patch: Partial<RemoteForm>) => void }) {
  return (
    <>
      <label>
        <span>Via SSH host (optional)</span>
        <input
          data-testid="connect-remote-ssh-host"
          value={form.sshHost}
          onChange={(e) => set({ sshHost: e.target.value })}
          placeholder="gpu-box (a Host of ~/.ssh/config)"
          spellCheck={false}
        />
        <small>
          Tunnels through ssh; the URL is then the worker's address on that host, e.g. http://127.0.0.1:8321
        </small>
      </label>
      <label>
        <span>Certificate fingerprint (https, optional)</span>
        <input
          data-testid="connect-remote-fingerprint"
          value={form.fingerprint}
          onChange={(e) => set({ fingerprint: e.target.value })}
          placeholder="SHA-256 AB:CD:… as the worker printed it"
          spellCheck={false}
        />
        <small>Empty: trusted on first use and shown after attaching; a changed certificate is refused.</small>
      </label>
    </>
  );
}
