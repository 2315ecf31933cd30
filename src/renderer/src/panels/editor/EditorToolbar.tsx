// The editor's toolbar: the running code version, Save & restart (with the unsaved file count),
// quarantine-previous-version, Try on recorded episodes, the last save's outcome, and the versions pane toggle.
import { shortVersion } from './editor-model';
import type { Note } from './use-editor';

export interface EditorToolbarProps {
  codeVersion: string | null;
  saving: boolean;
  canSave: boolean;
  dirtyCount: number;
  note: Note;
  versionsShown: boolean;
  versionCount: number;
  onSave: () => void;
  onToggleVersions: () => void;
  /** Reward try's pane, and whether a save quarantines the replaced version's pooled episodes. */
  tryShown: boolean;
  onTry: () => void;
  quarantinePrevious: boolean;
  onQuarantinePrevious: (on: boolean) => void;
}

export function EditorToolbar(p: EditorToolbarProps) {
  return (
    <div className="ed-toolbar">
      <span className="ed-label">running</span>
      <code className="ed-hash" data-testid="editor-code-version" title={p.codeVersion ?? 'not compiled yet'}>
        {shortVersion(p.codeVersion)}
      </code>
      <button
        type="button"
        className="ed-primary"
        data-testid="editor-save"
        onClick={p.onSave}
        disabled={p.saving || !p.canSave}
        title="Compile and hot-swap the clients (Ctrl/Cmd+S)"
      >
        {p.saving ? 'Saving…' : p.dirtyCount > 0 ? `Save & restart (${p.dirtyCount})` : 'Save & restart'}
      </button>
      <label className="ed-check" title="Each save quarantines the replaced version's pooled, untrained episodes">
        <input
          type="checkbox"
          data-testid="editor-quarantine-previous"
          checked={p.quarantinePrevious}
          onChange={(e) => p.onQuarantinePrevious(e.target.checked)}
        />
        quarantine previous version
      </label>
      <button
        type="button"
        className={`ed-toggle${p.tryShown ? ' on' : ''}`}
        data-testid="editor-try"
        onClick={p.onTry}
        title="Run the edited reward (unsaved text included) over recorded episodes and compare"
      >
        Try on recorded episodes
      </button>
      {p.note && (
        <span className={`ed-note ${p.note.tone}`} role={p.note.tone === 'error' ? 'alert' : 'status'}>
          {p.note.text}
        </span>
      )}
      <span className="ed-spacer" />
      <button type="button" className={`ed-toggle${p.versionsShown ? ' on' : ''}`} onClick={p.onToggleVersions}>
        Versions ({p.versionCount})
      </button>
    </div>
  );
}
