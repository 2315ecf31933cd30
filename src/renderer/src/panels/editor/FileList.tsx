// The editor's file list: the run's editable client files, then the read-only library files.
import type { WorkspaceFile } from './code-workspace';
import { baseName } from './editor-model';

function FileItem(props: {
  path: string;
  active: boolean;
  dirty: boolean;
  entry: boolean;
  onOpen: (path: string) => void;
}) {
  return (
    <button
      type="button"
      className={`ed-file${props.active ? ' active' : ''}`}
      title={props.path}
      onClick={() => props.onOpen(props.path)}
    >
      <span className="ed-file-name">{baseName(props.path)}</span>
      {props.entry && <span className="ed-badge">entry</span>}
      {props.dirty && <span className="ed-dirty">●</span>}
      <span className="ed-file-dir">
        {props.path.slice(0, Math.max(0, props.path.length - baseName(props.path).length - 1))}
      </span>
    </button>
  );
}

export interface FileListProps {
  editable: readonly WorkspaceFile[];
  readOnly: readonly WorkspaceFile[];
  /** The file shown in the editor (null while a diff is shown). */
  shown: string | null;
  entry: string | null;
  loading: boolean;
  isDirty: (path: string) => boolean;
  onOpen: (path: string) => void;
}

export function FileList(p: FileListProps) {
  return (
    <nav className="ed-files">
      <div className="ed-pane-title">Client files</div>
      {p.editable.map((f) => (
        <FileItem
          key={f.path}
          path={f.path}
          active={f.path === p.shown}
          dirty={p.isDirty(f.path)}
          entry={f.path === p.entry}
          onOpen={p.onOpen}
        />
      ))}
      <div className="ed-pane-title">Library (read-only)</div>
      {p.readOnly.map((f) => (
        <FileItem
          key={f.path}
          path={f.path}
          active={f.path === p.shown}
          dirty={false}
          entry={false}
          onOpen={p.onOpen}
        />
      ))}
      {p.loading && <div className="ed-empty">Loading…</div>}
    </nav>
  );
}
