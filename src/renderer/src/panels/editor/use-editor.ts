// The Editor panel's hooks: the workspace's revision (re-render on edits), the run's client files,
// its code versions, the compile errors (held once, in the app store; shown here as a list and as
// squiggles), Save & restart, and jumping to an error.
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { CodeMarker, CodeVersion, WorkbenchApi } from '../../../../shared/workbench-api';
import { applyCompileResult } from '../../store/state';
import { useApp, type AppStore } from '../../store/store';
import { codeWorkspace, type LocatedError } from './code-workspace';
import { filesToSave, saveSummary, shortVersion } from './editor-model';
import type { monaco } from './monaco-setup';

export type Load = { kind: 'idle' } | { kind: 'loading' } | { kind: 'ready' } | { kind: 'error'; message: string };
export type Note = { text: string; tone: 'ok' | 'error' | 'info' } | null;

export const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Re-renders on every edit, reload or tab change of the workspace; returns a change counter. */
export function useWorkspaceRevision(): number {
  const revision = useRef(0);
  const subscribe = useCallback(
    (onChange: () => void) =>
      codeWorkspace.subscribe(() => {
        revision.current += 1;
        onChange();
      }),
    [],
  );
  return useSyncExternalStore(subscribe, () => revision.current);
}

/** Loads the run's files into the workspace (keeping unsaved edits) when the run changes or its connect settles. */
export function useClientFiles(
  api: WorkbenchApi,
  runId: string | null,
  connecting: boolean,
): { load: Load; entry: string | null; loadedVersion: string | null; reload: () => void } {
  const [load, setLoad] = useState<Load>({ kind: 'idle' });
  const [entry, setEntry] = useState<string | null>(null);
  const [loadedVersion, setLoadedVersion] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
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
        const { active, readOnlyTabs } = codeWorkspace.view;
        const first =
          code.files.find((f) => f.path === code.entry)?.path ?? code.files.find((f) => f.editable)?.path ?? null;
        codeWorkspace.setView({
          active: active && codeWorkspace.get(active) ? active : first,
          readOnlyTabs: readOnlyTabs.filter((t) => codeWorkspace.get(t) !== null),
        });
        setEntry(code.entry);
        setLoadedVersion(code.codeVersion);
        setLoad({ kind: 'ready' });
      },
      (err: unknown) => live && setLoad({ kind: 'error', message: message(err) }),
    );
    return () => {
      live = false;
    };
  }, [api, runId, connecting, tick]);
  return { load, entry, loadedVersion, reload: () => setTick((t) => t + 1) };
}

/** The run's code versions, reloaded when a new version goes live (a `code` marker). */
export function useCodeVersions(api: WorkbenchApi, runId: string | null, markers: readonly CodeMarker[]) {
  const [versions, setVersions] = useState<CodeVersion[]>([]);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(() => {
    if (!runId) return;
    api.codeVersions({ runId }).then(
      (r) => {
        setVersions(r.versions);
        setError(null);
      },
      (err: unknown) => setError(message(err)),
    );
  }, [api, runId]);
  useEffect(() => {
    setVersions([]);
    reload();
  }, [reload]);
  const lastMarker = markers.length > 0 ? markers.reduce((a, b) => (b.time >= a.time ? b : a)) : null;
  const markerKey = lastMarker ? `${lastMarker.codeVersion}@${lastMarker.time}` : null;
  useEffect(() => {
    if (markerKey !== null) reload();
  }, [markerKey, reload]);
  // A version that took over (a save from another window, the CLI) is live, whichever run the charts show.
  const [announced, setAnnounced] = useState<{ runId: string; codeVersion: string } | null>(null);
  useEffect(
    () =>
      api.onEvent((event) => {
        if (event.type !== 'code' || event.runId !== runId) return;
        setAnnounced({ runId: event.runId, codeVersion: event.marker.codeVersion });
        reload();
      }),
    [api, runId, reload],
  );
  const liveVersion = (announced?.runId === runId ? announced?.codeVersion : null) ?? lastMarker?.codeVersion ?? null;
  /** This window's save made `codeVersion` the running one. */
  const noteRunning = useCallback(
    (codeVersion: string) => {
      if (runId) setAnnounced({ runId, codeVersion });
      reload();
    },
    [runId, reload],
  );
  return { versions, error, setError, reload, liveVersion, noteRunning };
}

/** The live code's compile errors from the app store, located in the workspace's files and shown as squiggles. */
export function useCompileErrors(store: AppStore, revision: number): { errors: LocatedError[]; dismiss: () => void } {
  const raw = useApp(store, (s) => s.compileErrors);
  // Located again when the workspace's set of files changes (a reload), not on every edit.
  const paths = revision >= 0 ? codeWorkspace.paths().join('\n') : '';
  const errors = useMemo(() => codeWorkspace.locate(raw), [raw, paths]);
  useEffect(() => codeWorkspace.showErrors(errors), [errors]);
  return { errors, dismiss: () => store.setState((s) => applyCompileResult(s, [])) };
}

/** Save & restart: compiles and hot-swaps; compile errors go to the store, the outcome to a note. */
export function useSave(
  api: WorkbenchApi,
  store: AppStore,
  entry: string | null,
  ready: boolean,
  onSaved: (codeVersion: string) => void,
  quarantinePrevious = false,
) {
  const [saving, setSaving] = useState(false);
  const [note, setNote] = useState<Note>(null);
  const save = useCallback(async () => {
    if (saving || !ready) return;
    const toSave = filesToSave(codeWorkspace.snapshot(), entry);
    if (toSave.length === 0) return;
    setSaving(true);
    setNote({ text: 'Compiling and restarting clients…', tone: 'info' });
    try {
      const result = await api.saveCode({ files: toSave, ...(quarantinePrevious ? { quarantinePrevious } : {}) });
      store.setState((s) => applyCompileResult(s, result.ok ? [] : result.errors));
      if (result.ok) {
        codeWorkspace.markSaved(toSave);
        onSaved(result.codeVersion);
        setNote({ text: `${shortVersion(result.codeVersion)} took over: ${saveSummary(result)}`, tone: 'ok' });
      } else {
        setNote({ text: saveSummary(result), tone: 'error' });
      }
    } catch (err) {
      setNote({ text: `Save failed: ${message(err)}`, tone: 'error' });
    } finally {
      setSaving(false);
    }
  }, [api, store, saving, ready, entry, onSaved, quarantinePrevious]);
  return { saving, note, save };
}

/** Jumps the editor to an error once its file's model is showing. */
export function useJump(editor: { current: monaco.editor.IStandaloneCodeEditor | null }, showing: unknown) {
  const [pending, setPending] = useState<LocatedError | null>(null);
  useEffect(() => {
    const ed = editor.current;
    if (!pending || !ed || pending.file === null) return;
    const target = codeWorkspace.get(pending.file);
    if (!target || ed.getModel() !== target.model) return;
    const position = { lineNumber: Math.max(1, pending.line), column: Math.max(1, pending.column) };
    ed.setPosition(position);
    ed.revealPositionInCenter(position);
    ed.focus();
    setPending(null);
  }, [pending, showing, editor]);
  return setPending;
}
