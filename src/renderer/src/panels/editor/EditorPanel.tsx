// The Editor panel: the run's client and reward files in Monaco (TypeScript IntelliSense over the
// SDK sources, which come read-only), Save & restart with inline compile errors, and the code
// versions with a diff between any two. The tabs live in the workspace (they survive unmounts),
// the compile errors in the app store; the rest is this panel's own view state.
import { useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { CodeMarker, Session, WorkbenchApi } from '../../../../shared/workbench-api';
import type { AppStore } from '../../store/store';
import { codeWorkspace, type LocatedError } from './code-workspace';
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
import { VersionsPanel } from './VersionsPanel';
import './editor.css';

export interface EditorPanelProps {
  api: WorkbenchApi;
  store: AppStore;
  session: Session | null;
  markers: CodeMarker[];
}

export function EditorPanel({ api, store, session, markers }: EditorPanelProps) {
  const runId = session?.runId ?? null;
  // A connect is finished only when its activity (starting the worker, compiling, starting the
  // clients) has cleared: the client files exist from then on.
  const connecting =
    session !== null &&
    (session.state === 'connecting' || (session.activity !== null && session.activity.phase !== 'stopping'));
  const revision = useWorkspaceRevision();
  const files = useClientFiles(api, runId, connecting);
  const versions = useCodeVersions(api, runId, markers);
  const compile = useCompileErrors(store, revision);
  const [showVersions, setShowVersions] = useState(true);
  const editor = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const diff = useDiff(api, runId, versions.setError);
  const jump = useJump(editor, [codeWorkspace.view.active, diff.diff]);
  const saver = useSave(api, store, files.entry, files.load.kind === 'ready', versions.noteRunning);
  // The running version: what went live last (a save, a `code` event, the newest marker), else what the files were loaded at.
  const codeVersion = versions.liveVersion ?? files.loadedVersion;

  const all = useMemo(() => (revision >= 0 ? codeWorkspace.list() : []), [revision]);
  const editable = all.filter((f) => f.editable);
  const { active, readOnlyTabs } = codeWorkspace.view;
  const tabs = [...editable.map((f) => f.path), ...readOnlyTabs.filter((p) => !editable.some((f) => f.path === p))];
  const openFile = (path: string): void => {
    diff.setDiff(null);
    const extra =
      editable.some((f) => f.path === path) || readOnlyTabs.includes(path) ? readOnlyTabs : [...readOnlyTabs, path];
    codeWorkspace.setView({ active: path, readOnlyTabs: extra });
  };
  const closeTab = (path: string): void =>
    codeWorkspace.setView({
      active: active === path ? (files.entry ?? editable[0]?.path ?? null) : active,
      readOnlyTabs: readOnlyTabs.filter((p) => p !== path),
    });
  const jumpTo = (e: LocatedError): void => {
    if (e.file === null) return;
    openFile(e.file);
    jump(e);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
      e.preventDefault();
      void saver.save();
    }
  };

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
      />
      {files.load.kind === 'error' && (
        <div className="ed-inline-error" role="alert">
          Could not load the client files: {files.load.message}{' '}
          <button type="button" className="ed-link" onClick={files.reload}>
            retry
          </button>
        </div>
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
        <section className="ed-main">
          <EditorTabs
            tabs={tabs}
            active={active}
            diff={diff.diff}
            isEditable={(p) => codeWorkspace.get(p)?.editable ?? false}
            isDirty={(p) => codeWorkspace.isDirty(p)}
            onOpen={openFile}
            onClose={closeTab}
            onCloseDiff={() => diff.setDiff(null)}
          />
          {diff.diff && (
            <DiffBar diff={diff.diff} onPath={(path) => diff.diff && diff.setDiff({ ...diff.diff, path })} />
          )}
          <EditorArea
            file={active ? codeWorkspace.get(active) : null}
            diff={diff.diff}
            onSave={() => void saver.save()}
            onEditor={(e) => void (editor.current = e)}
          />
          <CompileErrors errors={compile.errors} onJump={jumpTo} onDismiss={compile.dismiss} />
        </section>
        {showVersions && (
          <VersionsPanel
            versions={versions.versions}
            running={codeVersion}
            error={versions.error}
            from={diff.from}
            to={diff.to}
            onFrom={diff.setFrom}
            onTo={diff.setTo}
            onDiff={() => void diff.open()}
            onRefresh={versions.reload}
          />
        )}
      </div>
    </div>
  );
}
