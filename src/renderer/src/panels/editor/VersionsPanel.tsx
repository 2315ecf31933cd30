// The run's code versions (every hot-swap): pick one to compare against another version or the
// editor's current text, and a file; the diff opens in the editor area. Each version can be
// quarantined (its pooled, untrained episodes held out of training) and released, with counts.
import type { CodeVersion } from '../../../../shared/workbench-api';
import { formatVersionTime, shortVersion } from './editor-model';
import type { useQuarantine, VersionQuarantine } from './use-quarantine';

/** The pseudo-version "what the editor holds now" (unsaved edits included). */
export const EDITOR_BUFFERS = '__editor__';

export interface VersionsPanelProps {
  versions: CodeVersion[];
  running: string | null;
  error: string | null;
  from: string | null;
  to: string;
  onFrom: (version: string) => void;
  onTo: (version: string) => void;
  onDiff: () => void;
  onRefresh: () => void;
  /** Quarantine by code version (live run only; null: a past run). */
  quarantine: ReturnType<typeof useQuarantine> | null;
}

export function VersionsPanel(props: VersionsPanelProps) {
  const { versions, running, from, to } = props;
  const newestFirst = [...versions].sort((a, b) => b.createdAt - a.createdAt);
  return (
    <aside className="ed-versions-pane">
      <div className="ed-pane-title">
        <span>Versions</span>
        <button type="button" className="ed-link" onClick={props.onRefresh} title="Reload the version list">
          reload
        </button>
      </div>
      {props.error && (
        <div className="ed-inline-error" role="alert">
          {props.error}
        </div>
      )}
      {props.quarantine?.note && (
        <div
          className={props.quarantine.note.error ? 'ed-inline-error' : 'ed-muted ed-pane-note'}
          role={props.quarantine.note.error ? 'alert' : 'status'}
          data-testid="quarantine-note"
        >
          {props.quarantine.note.text}
        </div>
      )}
      <ul className="ed-versions" data-testid="editor-versions">
        {newestFirst.map((v) => (
          <li
            key={v.codeVersion}
            className={`ed-version${v.codeVersion === from ? ' selected' : ''}`}
            data-code-version={v.codeVersion}
            onClick={() => props.onFrom(v.codeVersion)}
            title={`${v.codeVersion}\n${v.files.join('\n')}`}
          >
            <code className="ed-hash">{shortVersion(v.codeVersion)}</code>
            <span className="ed-version-time">{formatVersionTime(v.createdAt)}</span>
            <span className="ed-version-step">{v.step === null ? 'not deployed' : `step ${v.step}`}</span>
            {v.codeVersion === running && <span className="ed-badge ok">running</span>}
            {props.quarantine && (
              <QuarantineRow
                q={props.quarantine.counts.get(v.codeVersion) ?? { held: 0, marked: 0, released: 0 }}
                busy={props.quarantine.busy === v.codeVersion}
                onQuarantine={() => props.quarantine?.quarantine(v.codeVersion)}
                onRelease={() => props.quarantine?.release(v.codeVersion)}
              />
            )}
          </li>
        ))}
        {newestFirst.length === 0 && <li className="ed-empty">No versions recorded yet.</li>}
      </ul>
      <div className="ed-diff-picker">
        <label>
          compare <code>{shortVersion(from)}</code> with
          <select value={to} onChange={(e) => props.onTo(e.target.value)}>
            <option value={EDITOR_BUFFERS}>editor (current text)</option>
            {newestFirst.map((v) => (
              <option key={v.codeVersion} value={v.codeVersion}>
                {shortVersion(v.codeVersion)}
                {v.codeVersion === running ? ' (running)' : ''}
              </option>
            ))}
          </select>
        </label>
        <button type="button" disabled={from === null || from === to} onClick={props.onDiff}>
          Show diff
        </button>
      </div>
    </aside>
  );
}

function QuarantineRow(props: {
  q: VersionQuarantine;
  busy: boolean;
  onQuarantine: () => void;
  onRelease: () => void;
}) {
  const { q } = props;
  // Clicks here act on the version, not select it for a diff.
  return (
    <div className="ed-quarantine" onClick={(e) => e.stopPropagation()}>
      <span
        className={`ed-badge${q.held > 0 ? ' held' : ''}`}
        data-testid="quarantine-held"
        data-held={q.held}
        title={`${q.marked} episodes marked quarantined in the store, ${q.released} of them released`}
      >
        {q.held} held
      </span>
      <span className="ed-spacer" />
      <button type="button" data-testid="quarantine-version" disabled={props.busy} onClick={props.onQuarantine}>
        Quarantine
      </button>
      <button
        type="button"
        data-testid="release-version"
        disabled={props.busy || q.held === 0}
        onClick={props.onRelease}
      >
        Release
      </button>
    </div>
  );
}
