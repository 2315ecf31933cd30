// The editor's files and tabs: every workspace file (recomputed on each workspace revision), the
// editable ones, the tab strip (editable files, then read-only files opened from the list), and
// opening a file, closing a tab and jumping to a compile error's file.
import { useMemo } from 'react';
import { codeWorkspace, type LocatedError } from './code-workspace';

export function useEditorTabs(
  revision: number,
  entry: string | null,
  closeDiff: () => void,
  jump: (error: LocatedError) => void,
) {
  const all = useMemo(() => (revision >= 0 ? codeWorkspace.list() : []), [revision]);
  const editable = all.filter((f) => f.editable);
  const { active, readOnlyTabs } = codeWorkspace.view;
  const tabs = [...editable.map((f) => f.path), ...readOnlyTabs.filter((p) => !editable.some((f) => f.path === p))];
  const openFile = (path: string): void => {
    closeDiff();
    const extra =
      editable.some((f) => f.path === path) || readOnlyTabs.includes(path) ? readOnlyTabs : [...readOnlyTabs, path];
    codeWorkspace.setView({ active: path, readOnlyTabs: extra });
  };
  const closeTab = (path: string): void =>
    codeWorkspace.setView({
      active: active === path ? (entry ?? editable[0]?.path ?? null) : active,
      readOnlyTabs: readOnlyTabs.filter((p) => p !== path),
    });
  const jumpTo = (e: LocatedError): void => {
    if (e.file === null) return;
    openFile(e.file);
    jump(e);
  };
  return { all, editable, active, tabs, openFile, closeTab, jumpTo };
}
