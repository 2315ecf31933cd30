// The run's code versions (every hot-swap): pick one to compare against another version or the
// editor's current text, and a file; the diff opens in the editor area.
import type { CodeVersion } from '../../../../shared/workbench-api';
import { formatVersionTime, shortVersion } from './editor-model';

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
