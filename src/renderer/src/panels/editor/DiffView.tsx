// A read-only Monaco diff editor of one file between two code versions (or a version and the
// editor's current text).
import { useEffect, useRef } from 'react';
import { editorTheme, monaco, viewLanguage } from './monaco-setup';

export interface DiffSide {
  label: string;
  /** The text, or a live model (the editor's buffer) to diff against. */
  content: string | monaco.editor.ITextModel;
}

export function DiffView(props: { original: DiffSide; modified: DiffSide; language: string }) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<monaco.editor.IStandaloneDiffEditor | null>(null);

  useEffect(() => {
    if (!host.current) return;
    const e = monaco.editor.createDiffEditor(host.current, {
      theme: editorTheme(),
      automaticLayout: true,
      readOnly: true,
      originalEditable: false,
      renderSideBySide: true,
      fontSize: 13,
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
      renderValidationDecorations: 'off',
    });
    editor.current = e;
    return () => {
      e.dispose();
      editor.current = null;
    };
  }, []);

  const { original, modified, language } = props;
  useEffect(() => {
    const e = editor.current;
    if (!e) return;
    // Diff-only models live under inmemory:// so they never collide with the editor's file:// models.
    const owned: monaco.editor.ITextModel[] = [];
    const toModel = (side: DiffSide): monaco.editor.ITextModel => {
      if (typeof side.content !== 'string') return side.content;
      const m = monaco.editor.createModel(side.content, viewLanguage(language));
      owned.push(m);
      return m;
    };
    e.setModel({ original: toModel(original), modified: toModel(modified) });
    return () => {
      // On unmount the editor is disposed first (the effect above); detach only from a live one.
      if (editor.current === e) e.setModel(null);
      for (const m of owned) m.dispose();
    };
  }, [original, modified, language]);

  return <div className="ed-diff" data-testid="editor-diff" ref={host} />;
}
