// The versions pane's diff: which two versions to compare (a stored version, or the editor's
// current text) and the open diff, its files paired by path.
import { useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/workbench-api';
import { codeWorkspace } from './code-workspace';
import { pairDiffFiles } from './editor-model';
import type { DiffState } from './EditorTabs';
import { message } from './use-editor';
import { EDITOR_BUFFERS } from './VersionsPanel';

export function useDiff(api: WorkbenchApi, runId: string | null, onError: (message: string) => void) {
  const [from, setFrom] = useState<string | null>(null);
  const [to, setTo] = useState<string>(EDITOR_BUFFERS);
  const [diff, setDiff] = useState<DiffState | null>(null);
  const open = async (): Promise<void> => {
    if (!runId || from === null) return;
    try {
      const fromFiles = (await api.codeVersionFiles({ runId, codeVersion: from })).files;
      const toFiles =
        to === EDITOR_BUFFERS
          ? codeWorkspace
              .snapshot()
              .filter((f) => f.editable)
              .map((f) => ({ path: f.path, content: f.current }))
          : (await api.codeVersionFiles({ runId, codeVersion: to })).files;
      const pairs = pairDiffFiles(fromFiles, toFiles);
      setDiff({ from, to, pairs, path: pairs[0]?.path ?? '' });
    } catch (err) {
      onError(`Could not load the versions' files: ${message(err)}`);
    }
  };
  return { from, to, setFrom, setTo, diff, setDiff, open };
}
