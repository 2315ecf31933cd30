// The local form's advanced training settings: one control per declared option with a form label
// (src/shared/options/declarations.ts); empty means the worker's default, shown as the placeholder.
import type { FormField } from '../../../../shared/options/index';
import { NumField, SelectField } from './fields';

export function TrainingFields({
  fields,
  values,
  onChange,
}: {
  fields: readonly FormField[];
  values: Readonly<Record<string, string>>;
  onChange: (name: string, value: string) => void;
}) {
  return (
    <div className="form-grid">
      {fields.map((f) =>
        f.kind === 'enum' ? (
          <SelectField
            key={f.name}
            label={f.label}
            testId={f.testId}
            value={values[f.name] ?? ''}
            onChange={(v) => onChange(f.name, v)}
          >
            <option value="">worker default</option>
            {f.choices.map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </SelectField>
        ) : (
          <NumField
            key={f.name}
            label={f.label}
            testId={f.testId}
            value={values[f.name] ?? ''}
            onChange={(v) => onChange(f.name, v)}
            step={f.kind === 'number' ? 'any' : undefined}
            placeholder={f.defaultText}
          />
        ),
      )}
    </div>
  );
}
