// The Editor panel: the run's client and reward files in Monaco (TypeScript IntelliSense over the
// SDK sources, which come read-only), Save & restart with inline compile errors, and the code
// versions with a diff between any two. The tabs live in the workspace (they survive unmounts),
// the compile errors in the app store; the rest is this panel's own view state.
import { useRef, useState, type KeyboardEvent } from 'react';
import type { CodeMarker, Session, WorkbenchApi } from '../../../../shared/workbench-api';
import type { AppStore } from '../../store/store';
import { codeWorkspace, type LocatedError } from './code-workspace';
import { isConnecting } from './editor-model';
import { CompileErrors } from './CompileErrors';
import { EditorArea } from './EditorArea';
import { DiffBar, EditorTabs } from './EditorTabs';
import { EditorToolbar } from './EditorToolbar';
import { FileList } from './FileList';
import type { monaco } from './monaco-setup';
import { useDiff } from './use-diff';
import {
  useClientFiles,
  useCodeVersions,
  useCompileErrors,
  useJump,
  useSave,
  useWorkspaceRevision,
} from './use-editor';
import { useEditorTabs } from './use-tabs';
import { VersionsPanel } from './VersionsPanel';
import { RewardTryPane } from './RewardTryPane';
import { tryTarget } from './reward-try-view';
import { useQuarantine } from './use-quarantine';
import './editor.css';

export interface EditorPanelProps {
  api: WorkbenchApi;
  store: AppStore;
  session: Session | null;
  markers: CodeMarker[];
}

export function EditorPanel({ api, store, session, markers }: EditorPanelProps) {
  const runId = session?.runId ?? null;
  const connecting = isConnecting(session);
  const revision = useWorkspaceRevision();
  const files = useClientFiles(api, runId, connecting);
  // Read once the run serves (while connecting, its row is not stored yet and the list would stay empty).
  const servingRunId = connecting ? null : runId;
  const versions = useCodeVersions(api, servingRunId, markers);
  const compile = useCompileErrors(store, revision);
  const [showVersions, setShowVersions] = useState(true);
  const [showTry, setShowTry] = useState(false);
  const [quarantinePrevious, setQuarantinePrevious] = useState(false);
  const editor = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const diff = useDiff(api, runId, versions.setError);
  const jump = useJump(editor, [codeWorkspace.view.active, diff.diff]);
  const saver = useSave(api, store, files.entry, files.load.kind === 'ready', versions.noteRunning, quarantinePrevious);
  // The running version: what went live last (a save, a `code` event, the newest marker), else
  // what the files were loaded at.
  const codeVersion = versions.liveVersion ?? files.loadedVersion;
  const quarantine = useQuarantine(api, servingRunId, versions.versions);

  const tabs = useEditorTabs(revision, files.entry, () => diff.setDiff(null), jump);
  const { all, editable, active, openFile } = tabs;
  const onKeyDown = saveOnCtrlS(saver.save);

  if (!session)
    return <div className="ed-panel ed-placeholder">Connect to a worker to edit the run's client code.</div>;
  return (
    <div className="ed-panel" onKeyDown={onKeyDown}>
      <EditorToolbar
        codeVersion={codeVersion}
        saving={saver.saving}
        canSave={files.load.kind === 'ready'}
        dirtyCount={editable.filter((f) => codeWorkspace.isDirty(f.path)).length}
        note={saver.note}
        versionsShown={showVersions}
        versionCount={versions.versions.length}
        onSave={() => void saver.save()}
        onToggleVersions={() => setShowVersions((v) => !v)}
        tryShown={showTry}
        onTry={() => setShowTry((v) => !v)}
        quarantinePrevious={quarantinePrevious}
        onQuarantinePrevious={setQuarantinePrevious}
      />
      {files.load.kind === 'error' && <LoadError message={files.load.message} onRetry={files.reload} />}
      {showTry && runId && (
        <RewardTryPane
          api={api}
          store={store}
          runId={runId}
          path={tryTarget(all, active)}
          versions={versions.versions}
          onClose={() => setShowTry(false)}
        />
      )}
      <div className="ed-body">
        <FileList
          editable={editable}
          readOnly={all.filter((f) => !f.editable)}
          shown={diff.diff ? null : active}
          entry={files.entry}
          loading={files.load.kind === 'loading'}
          isDirty={(p) => codeWorkspace.isDirty(p)}
          onOpen={openFile}
        />
        <EditorMain
          tabs={tabs}
          diff={diff}
          errors={compile.errors}
          onDismissErrors={compile.dismiss}
          onSave={() => void saver.save()}
          onEditor={(e) => void (editor.current = e)}
        />
        {showVersions && (
          <VersionsAside versions={versions} running={codeVersion} diff={diff} quarantine={quarantine} />
        )}
      </div>
    </div>
  );
}

/** Ctrl/Cmd+S saves. */
const saveOnCtrlS =
  (save: () => Promise<void>) =>
  (e: KeyboardEvent<HTMLDivElement>): void => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
      e.preventDefault();
      void save();
    }
  };

function VersionsAside(props: {
  versions: ReturnType<typeof useCodeVersions>;
  running: string | null;
  diff: ReturnType<typeof useDiff>;
  quarantine: ReturnType<typeof useQuarantine>;
}) {
  const { versions, diff } = props;
  return (
    <VersionsPanel
      versions={versions.versions}
      running={props.running}
      error={versions.error}
      from={diff.from}
      to={diff.to}
      onFrom={diff.setFrom}
      onTo={diff.setTo}
      onDiff={() => void diff.open()}
      onRefresh={versions.reload}
      quarantine={props.quarantine}
    />
  );
}

function LoadError({ message, onRetry }: { message: string; onRetry: () => void }) {
  return (
    <div className="ed-inline-error" role="alert">
      Could not load the client files: {message}{' '}
      <button type="button" className="ed-link" onClick={onRetry}>
        retry
      </button>
    </div>
  );
}

interface EditorMainProps {
  tabs: ReturnType<typeof useEditorTabs>;
  diff: ReturnType<typeof useDiff>;
  errors: LocatedError[];
  onDismissErrors: () => void;
  onSave: () => void;
  onEditor: (editor: monaco.editor.IStandaloneCodeEditor | null) => void;
}

/** The tabs, the diff bar while a diff is open, Monaco and the compile errors under it. */
function EditorMain({ tabs, diff, errors, onDismissErrors, onSave, onEditor }: EditorMainProps) {
  return (
    <section className="ed-main">
      <EditorTabs
        tabs={tabs.tabs}
        active={tabs.active}
        diff={diff.diff}
        isEditable={(p) => codeWorkspace.get(p)?.editable ?? false}
        isDirty={(p) => codeWorkspace.isDirty(p)}
        onOpen={tabs.openFile}
        onClose={tabs.closeTab}
        onCloseDiff={() => diff.setDiff(null)}
      />
      {diff.diff && <DiffBar diff={diff.diff} onPath={(path) => diff.diff && diff.setDiff({ ...diff.diff, path })} />}
      <EditorArea
        file={tabs.active ? codeWorkspace.get(tabs.active) : null}
        diff={diff.diff}
        onSave={onSave}
        onEditor={onEditor}
      />
      <CompileErrors errors={errors} onJump={tabs.jumpTo} onDismiss={onDismissErrors} />
    </section>
  );
}
