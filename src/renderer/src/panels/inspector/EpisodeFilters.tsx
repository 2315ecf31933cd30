// The episode filters (task substring, client, code version, reward range, kind, status) and order.
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
      <select
        data-testid="filter-kind"
        value={form.kind}
        onChange={(e) => set('kind', EPISODE_KINDS.find((k) => k === e.target.value) ?? '')}
        aria-label="kind"
      >
        <option value="">any kind</option>
        {EPISODE_KINDS.map((k) => (
          <option key={k} value={k}>
            {k}
          </option>
        ))}
      </select>
      <select
        data-testid="filter-status"
        value={form.status}
        onChange={(e) => set('status', EPISODE_STATUSES.find((s) => s === e.target.value) ?? '')}
        aria-label="status"
      >
        <option value="">any status</option>
        {EPISODE_STATUSES.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </select>
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

/** The task substring, client id and code version fields. */
function TextFilters({ form, set }: { form: FilterForm; set: SetFilter }) {
  return (
    <>
      <input
        data-testid="filter-task"
        placeholder="task contains…"
        value={form.task}
        onChange={(e) => set('task', e.target.value)}
        aria-label="task substring"
      />
      <input
        data-testid="filter-client"
        placeholder="client"
        value={form.clientId}
        onChange={(e) => set('clientId', e.target.value)}
        aria-label="client id"
      />
      <input
        data-testid="filter-code-version"
        placeholder="code version"
        value={form.codeVersion}
        onChange={(e) => set('codeVersion', e.target.value)}
        aria-label="code version"
      />
    </>
  );
}

function RewardRange({ form, set }: { form: FilterForm; set: SetFilter }) {
  return (
    <span className="in-range">
      <input
        data-testid="filter-min-reward"
        placeholder="min r"
        value={form.minReward}
        onChange={(e) => set('minReward', e.target.value)}
        aria-label="minimum reward"
        inputMode="decimal"
      />
      <span className="in-muted">–</span>
      <input
        data-testid="filter-max-reward"
        placeholder="max r"
        value={form.maxReward}
        onChange={(e) => set('maxReward', e.target.value)}
        aria-label="maximum reward"
        inputMode="decimal"
      />
    </span>
  );
}
