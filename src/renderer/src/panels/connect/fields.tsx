// Small labelled form controls of the Connect panel.
import type { ReactNode } from 'react';

export function Field({ label, value, mono }: { label: string; value: string; mono?: boolean }) {
  return (
    <div className="field">
      <span className="field-label">{label}</span>
      <span className={`field-value${mono ? ' mono' : ''}`} title={value}>
        {value}
      </span>
    </div>
  );
}

export function NumField({
  label,
  testId,
  value,
  onChange,
  step,
  placeholder = 'default',
}: {
  label: string;
  testId: string;
  value: string;
  onChange: (v: string) => void;
  step?: string;
  placeholder?: string;
}) {
  return (
    <label>
      <span>{label}</span>
      <input
        data-testid={testId}
        type="number"
        step={step}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder={placeholder}
      />
    </label>
  );
}

export function SelectField({
  label,
  testId,
  value,
  onChange,
  children,
  hint,
}: {
  label: string;
  testId: string;
  value: string;
  onChange: (v: string) => void;
  children: ReactNode;
  hint?: string;
}) {
  return (
    <label>
      <span>{label}</span>
      <select data-testid={testId} value={value} onChange={(e) => onChange(e.target.value)}>
        {children}
      </select>
      {hint !== undefined ? <small>{hint}</small> : null}
    </label>
  );
}

export function SecretField({
  label,
  testId,
  value,
  onChange,
}: {
  label: string;
  testId: string;
  value: string;
  onChange: (v: string) => void;
}) {
  return (
    <label>
      <span>{label}</span>
      <input
        data-testid={testId}
        type="password"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        autoComplete="off"
      />
    </label>
  );
}
