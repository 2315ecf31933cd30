// The editor area: the open file in Monaco (view state kept per file), or the open diff.
import { useMemo } from 'react';
import { codeWorkspace, type WorkspaceFile } from './code-workspace';
import { DiffView } from './DiffView';
import { languageOf, shortVersion } from './editor-model';
import { versionLabel, type DiffState } from './EditorTabs';
import { MonacoHost } from './MonacoHost';
import type { monaco } from './monaco-setup';

const fileOf = (m: monaco.editor.ITextModel): WorkspaceFile | undefined =>
  codeWorkspace.list().find((x) => x.model === m);

export interface EditorAreaProps {
  file: WorkspaceFile | null;
  diff: DiffState | null;
  onSave: () => void;
  onEditor: (e: monaco.editor.IStandaloneCodeEditor | null) => void;
}

export function EditorArea({ file, diff, onSave, onEditor }: EditorAreaProps) {
  const pair = diff?.pairs.find((p) => p.path === diff.path) ?? null;
  const sides = useMemo(
    () =>
      diff && pair
        ? {
            original: { label: shortVersion(diff.from), content: pair.original ?? '' },
            modified: { label: versionLabel(diff.to), content: pair.modified ?? '' },
          }
        : null,
    [diff, pair],
  );
  return (
    <div className="ed-editor-area">
      {diff && sides ? (
        <DiffView original={sides.original} modified={sides.modified} language={languageOf(diff.path)} />
      ) : (
        <MonacoHost
          model={file?.model ?? null}
          readOnly={!file?.editable}
          onSave={onSave}
          onEditor={onEditor}
          onLeaveModel={(m, state) => {
            const f = fileOf(m);
            if (f) codeWorkspace.saveViewState(f.path, state);
          }}
          viewStateFor={(m) => {
            const f = fileOf(m);
            return f ? codeWorkspace.viewState(f.path) : null;
          }}
        />
      )}
    </div>
  );
}
