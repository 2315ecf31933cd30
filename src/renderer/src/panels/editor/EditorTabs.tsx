// The editor's tabs (editable files, then opened read-only ones, closable) and the diff's tab and
// file picker when a diff is open.
import { baseName, fileTabTestId, shortVersion, type DiffPair } from './editor-model';
import { EDITOR_BUFFERS } from './VersionsPanel';

export interface DiffState {
  from: string;
  to: string;
  pairs: DiffPair[];
  path: string;
}

export const versionLabel = (v: string): string => (v === EDITOR_BUFFERS ? 'editor' : shortVersion(v));

export interface EditorTabsProps {
  tabs: readonly string[];
  active: string | null;
  diff: DiffState | null;
  isEditable: (path: string) => boolean;
  isDirty: (path: string) => boolean;
  onOpen: (path: string) => void;
  onClose: (path: string) => void;
  onCloseDiff: () => void;
}

export function EditorTabs(p: EditorTabsProps) {
  return (
    <div className="ed-tabs" role="tablist">
      {p.tabs.map((path) => {
        const editable = p.isEditable(path);
        const on = path === p.active && !p.diff;
        return (
          <div
            key={path}
            role="tab"
            aria-selected={on}
            className={`ed-tab${on ? ' active' : ''}${editable ? '' : ' readonly'}`}
            data-testid={fileTabTestId(path)}
            title={path}
            onClick={() => p.onOpen(path)}
          >
            {!editable && (
              <span className="ed-lock" aria-label="read-only">
                🔒
              </span>
            )}
            <span>{baseName(path)}</span>
            {p.isDirty(path) && (
              <span className="ed-dirty" aria-label="unsaved changes">
                ●
              </span>
            )}
            {!editable && (
              <button
                type="button"
                className="ed-close"
                aria-label={`close ${path}`}
                onClick={(e) => {
                  e.stopPropagation();
                  p.onClose(path);
                }}
              >
                ×
              </button>
            )}
          </div>
        );
      })}
      {p.diff && (
        <div className="ed-tab active diff" role="tab" aria-selected>
          diff {shortVersion(p.diff.from)} → {versionLabel(p.diff.to)}
          <button type="button" className="ed-close" aria-label="close diff" onClick={p.onCloseDiff}>
            ×
          </button>
        </div>
      )}
    </div>
  );
}

export function DiffBar({ diff, onPath }: { diff: DiffState; onPath: (path: string) => void }) {
  return (
    <div className="ed-diff-bar">
      <select value={diff.path} onChange={(e) => onPath(e.target.value)}>
        {diff.pairs.map((pair) => (
          <option key={pair.path} value={pair.path}>
            {pair.path}
            {pair.original === null
              ? ' (added)'
              : pair.modified === null
                ? ' (removed)'
                : pair.original === pair.modified
                  ? ''
                  : ' (changed)'}
          </option>
        ))}
      </select>
      <span className="ed-muted">
        left: {shortVersion(diff.from)} · right: {versionLabel(diff.to)}
      </span>
    </div>
  );
}
