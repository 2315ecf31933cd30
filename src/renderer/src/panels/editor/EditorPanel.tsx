// The Editor panel: the run's client and reward files in Monaco (TypeScript IntelliSense over the
// SDK sources, which come read-only), Save & restart with inline compile errors, and the code
// versions with a diff between any two.
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore, type KeyboardEvent } from 'react';
import type { CodeMarker, CodeVersion, Session, WorkbenchApi } from '../../../../shared/workbench-api';
import { codeWorkspace, type LocatedError } from './code-workspace';
import { DiffView } from './DiffView';
import { baseName, errorLocation, fileTabTestId, filesToSave, languageOf, pairDiffFiles, saveSummary, shortVersion, type DiffPair } from './editor-model';
import { MonacoHost } from './MonacoHost';
import type { monaco } from './monaco-setup';
import { EDITOR_BUFFERS, VersionsPanel } from './VersionsPanel';
import './editor.css';

type Load = { kind: 'idle' } | { kind: 'loading' } | { kind: 'ready' } | { kind: 'error'; message: string };
interface DiffState {
  from: string;
  to: string;
  pairs: DiffPair[];
  path: string;
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Re-renders on every edit or reload of the workspace; returns a change counter. */
function useWorkspaceRevision(): number {
  const revision = useRef(0);
  const subscribe = useCallback((onChange: () => void) => codeWorkspace.subscribe(() => {
    revision.current += 1;
    onChange();
  }), []);
  return useSyncExternalStore(subscribe, () => revision.current);
}

export function EditorPanel(props: { api: WorkbenchApi; session: Session | null; markers: CodeMarker[] }) {
  const { api, session, markers } = props;
  const runId = session?.runId ?? null;
  // A connect is finished only when its activity (starting the worker, compiling, starting the
  // clients) has cleared: the client files exist from then on.
  const connecting = session !== null && (session.state === 'connecting' || (session.activity !== null && session.activity.phase !== 'stopping'));
  const revision = useWorkspaceRevision();

  const [load, setLoad] = useState<Load>({ kind: 'idle' });
  const [entry, setEntry] = useState<string | null>(null);
  const [active, setActive] = useState<string | null>(codeWorkspace.ui.active);
  const [readOnlyTabs, setReadOnlyTabs] = useState<string[]>(codeWorkspace.ui.readOnlyTabs);
  const [codeVersion, setCodeVersion] = useState<string | null>(null);
  const [note, setNote] = useState<{ text: string; tone: 'ok' | 'error' | 'info' } | null>(null);
  const [saving, setSaving] = useState(false);
  const [errors, setErrors] = useState<LocatedError[]>(codeWorkspace.ui.errors);
  const [versions, setVersions] = useState<CodeVersion[]>([]);
  const [versionsError, setVersionsError] = useState<string | null>(null);
  const [showVersions, setShowVersions] = useState(true);
  const [diffFrom, setDiffFrom] = useState<string | null>(null);
  const [diffTo, setDiffTo] = useState<string>(EDITOR_BUFFERS);
  const [diff, setDiff] = useState<DiffState | null>(null);
  const [pendingJump, setPendingJump] = useState<LocatedError | null>(null);
  const editor = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const [reloadTick, setReloadTick] = useState(0);

  // Load the run's files (keeping unsaved edits) when the run changes or the connection settles.
  useEffect(() => {
    if (!runId || connecting) {
      setLoad({ kind: 'idle' });
      return;
    }
    let live = true;
    setLoad({ kind: 'loading' });
    api.codeFiles({}).then(
      (code) => {
        if (!live) return;
        codeWorkspace.load(code);
        setErrors(codeWorkspace.ui.errors);
        setEntry(code.entry);
        setCodeVersion(code.codeVersion);
        setActive((prev) => (prev && codeWorkspace.get(prev) ? prev : (code.files.find((f) => f.path === code.entry)?.path ?? code.files.find((f) => f.editable)?.path ?? null)));
        setReadOnlyTabs((tabs) => tabs.filter((t) => codeWorkspace.get(t) !== null));
        setLoad({ kind: 'ready' });
      },
      (err: unknown) => live && setLoad({ kind: 'error', message: message(err) }),
    );
    return () => {
      live = false;
    };
  }, [api, runId, connecting, reloadTick]);

  // Kept in the workspace so switching panels (which may unmount this one) loses nothing.
  useEffect(() => {
    codeWorkspace.ui = { active, readOnlyTabs, errors };
  }, [active, readOnlyTabs, errors]);

  const loadVersions = useCallback(() => {
    if (!runId) return;
    api.codeVersions({ runId }).then(
      (r) => {
        setVersions(r.versions);
        setVersionsError(null);
      },
      (err: unknown) => setVersionsError(message(err)),
    );
  }, [api, runId]);
  useEffect(() => {
    setVersions([]);
    loadVersions();
  }, [loadVersions]);

  // A `code` marker from the parent means a new version is live.
  const lastMarker = markers.length > 0 ? markers.reduce((a, b) => (b.time >= a.time ? b : a)) : null;
  const liveVersion = lastMarker?.codeVersion ?? null;
  const liveSince = lastMarker?.time ?? null;
  useEffect(() => {
    if (liveVersion === null || liveSince === null) return;
    setCodeVersion(liveVersion);
    loadVersions();
  }, [liveVersion, liveSince, loadVersions]);

  // Compile failures of saves made elsewhere (another window, the CLI) show here too.
  useEffect(
    () =>
      api.onEvent((event) => {
        if (event.type === 'compile_failed' && event.runId === runId) setErrors(codeWorkspace.setErrors(event.errors));
        if (event.type === 'code' && event.runId === runId) setCodeVersion(event.marker.codeVersion);
      }),
    [api, runId],
  );

  // `revision` changes on every edit or reload of the workspace.
  const files = useMemo(() => (revision >= 0 ? codeWorkspace.list() : []), [revision]);
  const editable = files.filter((f) => f.editable);
  const readOnly = files.filter((f) => !f.editable);
  const tabs = [...editable.map((f) => f.path), ...readOnlyTabs.filter((p) => !editable.some((f) => f.path === p))];
  const activeFile = active ? codeWorkspace.get(active) : null;
  const dirtyCount = editable.filter((f) => codeWorkspace.isDirty(f.path)).length;

  const save = useCallback(async () => {
    if (saving || load.kind !== 'ready') return;
    const toSave = filesToSave(codeWorkspace.snapshot(), entry);
    if (toSave.length === 0) return;
    setSaving(true);
    setNote({ text: 'Compiling and restarting clients…', tone: 'info' });
    try {
      const result = await api.saveCode({ files: toSave });
      if (result.ok) {
        codeWorkspace.markSaved(toSave);
        codeWorkspace.clearErrors();
        setErrors([]);
        setCodeVersion(result.codeVersion);
        setNote({ text: `${shortVersion(result.codeVersion)} took over: ${saveSummary(result)}`, tone: 'ok' });
        loadVersions();
      } else {
        setErrors(codeWorkspace.setErrors(result.errors));
        setNote({ text: saveSummary(result), tone: 'error' });
      }
    } catch (err) {
      setNote({ text: `Save failed: ${message(err)}`, tone: 'error' });
    } finally {
      setSaving(false);
    }
  }, [api, saving, load.kind, loadVersions, entry]);

  const openFile = (path: string): void => {
    setDiff(null);
    setActive(path);
    if (!editable.some((f) => f.path === path) && !readOnlyTabs.includes(path)) setReadOnlyTabs((t) => [...t, path]);
  };
  const closeTab = (path: string): void => {
    setReadOnlyTabs((t) => t.filter((p) => p !== path));
    if (active === path) setActive(entry ?? editable[0]?.path ?? null);
  };
  const jumpTo = (e: LocatedError): void => {
    if (e.file === null) return;
    openFile(e.file);
    setPendingJump(e);
  };
  useEffect(() => {
    const ed = editor.current;
    if (!pendingJump || !ed || pendingJump.file === null) return;
    const target = codeWorkspace.get(pendingJump.file);
    if (!target || ed.getModel() !== target.model) return;
    const position = { lineNumber: Math.max(1, pendingJump.line), column: Math.max(1, pendingJump.column) };
    ed.setPosition(position);
    ed.revealPositionInCenter(position);
    ed.focus();
    setPendingJump(null);
  }, [pendingJump, active, diff]);

  const openDiff = async (): Promise<void> => {
    if (!runId || diffFrom === null) return;
    try {
      const fromFiles = (await api.codeVersionFiles({ runId, codeVersion: diffFrom })).files;
      const toFiles =
        diffTo === EDITOR_BUFFERS
          ? codeWorkspace.snapshot().filter((f) => f.editable).map((f) => ({ path: f.path, content: f.current }))
          : (await api.codeVersionFiles({ runId, codeVersion: diffTo })).files;
      const pairs = pairDiffFiles(fromFiles, toFiles);
      setDiff({ from: diffFrom, to: diffTo, pairs, path: pairs[0]?.path ?? '' });
    } catch (err) {
      setVersionsError(`Could not load the versions' files: ${message(err)}`);
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
      e.preventDefault();
      void save();
    }
  };

  const diffPair = diff?.pairs.find((p) => p.path === diff.path) ?? null;
  const diffSides = useMemo(
    () =>
      diff && diffPair
        ? {
            original: { label: shortVersion(diff.from), content: diffPair.original ?? '' },
            modified: { label: diff.to === EDITOR_BUFFERS ? 'editor' : shortVersion(diff.to), content: diffPair.modified ?? '' },
          }
        : null,
    [diff, diffPair],
  );

  if (!session) return <div className="ed-panel ed-placeholder">Connect to a worker to edit the run's client code.</div>;

  return (
    <div className="ed-panel" onKeyDown={onKeyDown}>
      <div className="ed-toolbar">
        <span className="ed-label">running</span>
        <code className="ed-hash" data-testid="editor-code-version" title={codeVersion ?? 'not compiled yet'}>{shortVersion(codeVersion)}</code>
        <button type="button" className="ed-primary" data-testid="editor-save" onClick={() => void save()} disabled={saving || load.kind !== 'ready'} title="Compile and hot-swap the clients (Ctrl/Cmd+S)">
          {saving ? 'Saving…' : dirtyCount > 0 ? `Save & restart (${dirtyCount})` : 'Save & restart'}
        </button>
        {note && <span className={`ed-note ${note.tone}`} role={note.tone === 'error' ? 'alert' : 'status'}>{note.text}</span>}
        <span className="ed-spacer" />
        <button type="button" className={`ed-toggle${showVersions ? ' on' : ''}`} onClick={() => setShowVersions((v) => !v)}>Versions ({versions.length})</button>
      </div>
      {load.kind === 'error' && (
        <div className="ed-inline-error" role="alert">
          Could not load the client files: {load.message} <button type="button" className="ed-link" onClick={() => setReloadTick((t) => t + 1)}>retry</button>
        </div>
      )}
      <div className="ed-body">
        <nav className="ed-files">
          <div className="ed-pane-title">Client files</div>
          {editable.map((f) => (
            <FileItem key={f.path} path={f.path} active={f.path === active && !diff} dirty={codeWorkspace.isDirty(f.path)} entry={f.path === entry} onOpen={openFile} />
          ))}
          <div className="ed-pane-title">Library (read-only)</div>
          {readOnly.map((f) => (
            <FileItem key={f.path} path={f.path} active={f.path === active && !diff} dirty={false} entry={false} onOpen={openFile} />
          ))}
          {load.kind === 'loading' && <div className="ed-empty">Loading…</div>}
        </nav>
        <section className="ed-main">
          <div className="ed-tabs" role="tablist">
            {tabs.map((path) => {
              const f = codeWorkspace.get(path);
              const dirty = codeWorkspace.isDirty(path);
              return (
                <div key={path} role="tab" aria-selected={path === active && !diff} className={`ed-tab${path === active && !diff ? ' active' : ''}${f?.editable ? '' : ' readonly'}`} data-testid={fileTabTestId(path)} title={path} onClick={() => openFile(path)}>
                  {!f?.editable && <span className="ed-lock" aria-label="read-only">🔒</span>}
                  <span>{baseName(path)}</span>
                  {dirty && <span className="ed-dirty" aria-label="unsaved changes">●</span>}
                  {!f?.editable && (
                    <button type="button" className="ed-close" aria-label={`close ${path}`} onClick={(e) => { e.stopPropagation(); closeTab(path); }}>×</button>
                  )}
                </div>
              );
            })}
            {diff && (
              <div className="ed-tab active diff" role="tab" aria-selected>
                diff {shortVersion(diff.from)} → {diff.to === EDITOR_BUFFERS ? 'editor' : shortVersion(diff.to)}
                <button type="button" className="ed-close" aria-label="close diff" onClick={() => setDiff(null)}>×</button>
              </div>
            )}
          </div>
          {diff && (
            <div className="ed-diff-bar">
              <select value={diff.path} onChange={(e) => setDiff({ ...diff, path: e.target.value })}>
                {diff.pairs.map((p) => (
                  <option key={p.path} value={p.path}>
                    {p.path}
                    {p.original === null ? ' (added)' : p.modified === null ? ' (removed)' : p.original === p.modified ? '' : ' (changed)'}
                  </option>
                ))}
              </select>
              <span className="ed-muted">left: {diffSides?.original.label} · right: {diffSides?.modified.label}</span>
            </div>
          )}
          <div className="ed-editor-area">
            {diff && diffSides ? (
              <DiffView original={diffSides.original} modified={diffSides.modified} language={languageOf(diff.path)} />
            ) : (
              <MonacoHost
                model={activeFile?.model ?? null}
                readOnly={!activeFile?.editable}
                onSave={() => void save()}
                onEditor={(e) => {
                  editor.current = e;
                }}
                onLeaveModel={(m, state) => {
                  const f = codeWorkspace.list().find((x) => x.model === m);
                  if (f) codeWorkspace.saveViewState(f.path, state);
                }}
                viewStateFor={(m) => {
                  const f = codeWorkspace.list().find((x) => x.model === m);
                  return f ? codeWorkspace.viewState(f.path) : null;
                }}
              />
            )}
          </div>
          {errors.length > 0 && (
            <div className="ed-errors-pane">
              <div className="ed-pane-title">
                <span>Compile errors ({errors.length}) — the running clients were not touched</span>
                <button type="button" className="ed-link" onClick={() => { codeWorkspace.clearErrors(); setErrors([]); }}>dismiss</button>
              </div>
              <ul className="ed-errors" data-testid="editor-errors">
                {errors.map((e, i) => (
                  <li key={i} className={`ed-error${e.file === null ? ' unlocated' : ''}`} data-testid="editor-error" onClick={() => jumpTo(e)} title={e.file === null ? 'This file is not open in the editor' : 'Go to the error'}>
                    <code className="ed-error-loc">{errorLocation(e)}</code>
                    <span className="ed-error-msg">{e.message}</span>
                  </li>
                ))}
              </ul>
            </div>
          )}
        </section>
        {showVersions && (
          <VersionsPanel
            versions={versions}
            running={codeVersion}
            error={versionsError}
            from={diffFrom}
            to={diffTo}
            onFrom={setDiffFrom}
            onTo={setDiffTo}
            onDiff={() => void openDiff()}
            onRefresh={loadVersions}
          />
        )}
      </div>
    </div>
  );
}

function FileItem(props: { path: string; active: boolean; dirty: boolean; entry: boolean; onOpen: (path: string) => void }) {
  return (
    <button type="button" className={`ed-file${props.active ? ' active' : ''}`} title={props.path} onClick={() => props.onOpen(props.path)}>
      <span className="ed-file-name">{baseName(props.path)}</span>
      {props.entry && <span className="ed-badge">entry</span>}
      {props.dirty && <span className="ed-dirty">●</span>}
      <span className="ed-file-dir">{props.path.slice(0, Math.max(0, props.path.length - baseName(props.path).length - 1))}</span>
    </button>
  );
}
