// Old and new values side by side above an episode another panel opened (reward try: the recorded
// reward and success vs what the edited reward gives).
import type { InspectRequest } from '../../store/store';
import './inner-loop.css';

export function CompareBar({ compare }: { compare: NonNullable<InspectRequest['compare']> }) {
  return (
    <div className="in-compare" data-testid="inspect-compare">
      <span className="in-muted">{compare.title}</span>
      <table>
        <thead>
          <tr>
            <th />
            <th>recorded</th>
            <th>tried</th>
          </tr>
        </thead>
        <tbody>
          {compare.rows.map((r) => (
            <tr key={r.label} className={r.old === r.new ? '' : 'changed'}>
              <th>{r.label}</th>
              <td data-testid={`compare-old-${r.label}`}>{r.old}</td>
              <td data-testid={`compare-new-${r.label}`}>{r.new}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
