// The local worker form: model, example, client count and the advanced training settings.
import { useEffect, useState, type FormEvent } from 'react';
import type { ExampleInfo, LocalConnect } from '../../../../shared/workbench-api';
import { buildLocalParams, DEFAULT_LOCAL, TRAINING_FIELDS, type LocalForm } from './connect-form';
import { SelectField } from './fields';
import { TrainingFields } from './TrainingFields';

export interface LocalWorkerFormProps {
  examples: readonly ExampleInfo[];
  disabled: boolean;
  onSubmit: (params: LocalConnect) => void;
  onInvalid: (message: string) => void;
}

export function LocalWorkerForm({ examples, disabled, onSubmit, onInvalid }: LocalWorkerFormProps) {
  const [form, setForm] = useState<LocalForm>(DEFAULT_LOCAL);
  const set = (name: string, value: string): void => setForm((f) => ({ ...f, [name]: value }));
  // The first listed example replaces a default that is not among them.
  useEffect(() => {
    setForm((f) =>
      examples.length > 0 && !examples.some((e) => e.name === f.example) ? { ...f, example: examples[0]!.name } : f,
    );
  }, [examples]);
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    const built = buildLocalParams(form);
    if (built.ok) onSubmit(built.params);
    else onInvalid(built.error);
  };
  const selected = examples.find((x) => x.name === form.example);
  return (
    <form className="card form" onSubmit={submit} aria-label="Local worker">
      <h3>Local worker</h3>
      <label>
        <span>Model</span>
        <input
          data-testid="connect-model"
          value={form.model}
          onChange={(e) => set('model', e.target.value)}
          placeholder="builtin or /path/to/hf-model"
          spellCheck={false}
        />
        <small>“builtin” is the embedded tiny model (trains on CPU); or a local Hugging Face folder.</small>
      </label>
      <SelectField
        label="Example"
        testId="connect-example"
        value={form.example}
        onChange={(v) => set('example', v)}
        hint={selected?.description ?? ''}
      >
        {examples.length === 0 ? <option value={form.example}>{form.example}</option> : null}
        {examples.map((x) => (
          <option key={x.name} value={x.name}>
            {x.name}
          </option>
        ))}
      </SelectField>
      <label>
        <span>Clients</span>
        <input
          data-testid="connect-clients"
          type="number"
          min={0}
          max={64}
          value={form.clients}
          onChange={(e) => set('clients', e.target.value)}
        />
      </label>
      <details className="advanced">
        <summary>Advanced training settings</summary>
        <TrainingFields fields={TRAINING_FIELDS} values={form} onChange={set} />
      </details>
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" data-testid="connect-local-submit" disabled={disabled}>
          Start local worker
        </button>
      </div>
    </form>
  );
}
