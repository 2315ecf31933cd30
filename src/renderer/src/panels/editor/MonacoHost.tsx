// One Monaco code editor that shows whichever model it is given (one per file); Ctrl/Cmd+S saves.
import { useEffect, useRef } from 'react';
import { editorTheme, monaco } from './monaco-setup';

export interface MonacoHostProps {
  model: monaco.editor.ITextModel | null;
  readOnly: boolean;
  onSave: () => void;
  /** The editor instance, once created (null on unmount): for jumping to an error. */
  onEditor: (editor: monaco.editor.IStandaloneCodeEditor | null) => void;
  /** Before the model changes: the old model's view state (cursor, scroll), to restore later. */
  onLeaveModel: (model: monaco.editor.ITextModel, state: monaco.editor.ICodeEditorViewState | null) => void;
  viewStateFor: (model: monaco.editor.ITextModel) => monaco.editor.ICodeEditorViewState | null;
}

export function MonacoHost(props: MonacoHostProps) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const latest = useRef(props);
  useEffect(() => {
    latest.current = props;
  });

  useEffect(() => {
    if (!host.current) return;
    const e = monaco.editor.create(host.current, {
      model: null,
      theme: editorTheme(),
      automaticLayout: true,
      fontSize: 13,
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
      tabSize: 2,
      renderWhitespace: 'selection',
      fixedOverflowWidgets: true,
    });
    e.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => latest.current.onSave());
    editor.current = e;
    latest.current.onEditor(e);
    return () => {
      const m = e.getModel();
      if (m) latest.current.onLeaveModel(m, e.saveViewState());
      latest.current.onEditor(null);
      e.dispose();
      editor.current = null;
    };
  }, []);

  const { model, readOnly } = props;
  useEffect(() => {
    const e = editor.current;
    if (!e) return;
    const previous = e.getModel();
    if (previous !== model) {
      if (previous && !previous.isDisposed()) latest.current.onLeaveModel(previous, e.saveViewState());
      e.setModel(model);
      const state = model ? latest.current.viewStateFor(model) : null;
      if (state) e.restoreViewState(state);
    }
    e.updateOptions({ readOnly, domReadOnly: readOnly });
  }, [model, readOnly]);

  return <div className="ed-monaco" data-testid="editor-monaco" ref={host} />;
}
