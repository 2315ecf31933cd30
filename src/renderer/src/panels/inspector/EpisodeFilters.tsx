// The episode filters (task substring, client, code version, role, reward range, kind, status) and order.
import type { FilterForm, EpisodeOrder } from './episode-query';
import { EPISODE_KINDS, EPISODE_ORDERS, EPISODE_STATUSES } from './episode-query';

type SetFilter = <K extends keyof FilterForm>(k: K, v: FilterForm[K]) => void;

export function EpisodeFilters(props: {
  form: FilterForm;
  order: EpisodeOrder;
  errors: string[];
  onForm: (form: FilterForm) => void;
  onOrder: (order: EpisodeOrder) => void;
  onClear: () => void;
}) {
  const { form, onForm } = props;
  const set: SetFilter = (k, v) => onForm({ ...form, [k]: v });
  return (
    <div className="in-filters">
      <TextFilters form={form} set={set} />
      <RewardRange form={form} set={set} />
      <ChoiceFilter form={form} set={set} field="kind" choices={EPISODE_KINDS} />
      <ChoiceFilter form={form} set={set} field="status" choices={EPISODE_STATUSES} />
      <select
        data-testid="filter-order"
        value={props.order}
        onChange={(e) => props.onOrder(EPISODE_ORDERS.find((o) => o.value === e.target.value)?.value ?? 'newest')}
        aria-label="order"
      >
        {EPISODE_ORDERS.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <button type="button" onClick={props.onClear}>
        clear
      </button>
      {props.errors.length > 0 && (
        <div className="in-error" role="alert">
          {props.errors.join('; ')}
        </div>
      )}
    </div>
  );
}

type TextField = 'task' | 'clientId' | 'codeVersion' | 'role' | 'minReward' | 'maxReward';

/** A text field of the form: its test id, placeholder and accessible label. */
const TEXT_FIELDS: Record<TextField, { testId: string; placeholder: string; label: string }> = {
  task: { testId: 'filter-task', placeholder: 'task contains…', label: 'task substring' },
  clientId: { testId: 'filter-client', placeholder: 'client', label: 'client id' },
  codeVersion: { testId: 'filter-code-version', placeholder: 'code version', label: 'code version' },
  role: { testId: 'filter-role', placeholder: 'role', label: 'role (exact)' },
  minReward: { testId: 'filter-min-reward', placeholder: 'min r', label: 'minimum reward' },
  maxReward: { testId: 'filter-max-reward', placeholder: 'max r', label: 'maximum reward' },
};

function TextFilter({ form, set, field }: { form: FilterForm; set: SetFilter; field: TextField }) {
  const f = TEXT_FIELDS[field];
  return (
    <input
      data-testid={f.testId}
      placeholder={f.placeholder}
      value={form[field]}
      onChange={(e) => set(field, e.target.value)}
      aria-label={f.label}
      {...(field === 'minReward' || field === 'maxReward' ? { inputMode: 'decimal' as const } : {})}
    />
  );
}

/** The task substring, client id, code version and role fields. */
function TextFilters({ form, set }: { form: FilterForm; set: SetFilter }) {
  return (
    <>
      {(['task', 'clientId', 'codeVersion', 'role'] as const).map((field) => (
        <TextFilter key={field} form={form} set={set} field={field} />
      ))}
    </>
  );
}

function RewardRange({ form, set }: { form: FilterForm; set: SetFilter }) {
  return (
    <span className="in-range">
      <TextFilter form={form} set={set} field="minReward" />
      <span className="in-muted">–</span>
      <TextFilter form={form} set={set} field="maxReward" />
    </span>
  );
}

/** A select of one of the form's choice fields (kind, status), '' being any. */
function ChoiceFilter<K extends 'kind' | 'status'>(props: {
  form: FilterForm;
  set: SetFilter;
  field: K;
  choices: readonly Exclude<FilterForm[K], ''>[];
}) {
  const { form, set, field, choices } = props;
  return (
    <select
      data-testid={`filter-${field}`}
      value={form[field]}
      onChange={(e) => set(field, choices.find((c) => c === e.target.value) ?? '')}
      aria-label={field}
    >
      <option value="">any {field}</option>
      {choices.map((c) => (
        <option key={c} value={c}>
          {c}
        </option>
      ))}
    </select>
  );
}
