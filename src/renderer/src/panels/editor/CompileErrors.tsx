// The compile errors of the last save (the running clients untouched): each with its location,
// a click jumps to it; dismiss clears them.
import type { LocatedError } from './code-workspace';
import { errorLocation } from './editor-model';

export function CompileErrors({
  errors,
  onJump,
  onDismiss,
}: {
  errors: readonly LocatedError[];
  onJump: (e: LocatedError) => void;
  onDismiss: () => void;
}) {
  if (errors.length === 0) return null;
  return (
    <div className="ed-errors-pane">
      <div className="ed-pane-title">
        <span>Compile errors ({errors.length}) — the running clients were not touched</span>
        <button type="button" className="ed-link" onClick={onDismiss}>
          dismiss
        </button>
      </div>
      <ul className="ed-errors" data-testid="editor-errors">
        {errors.map((e, i) => (
          <li
            key={i}
            className={`ed-error${e.file === null ? ' unlocated' : ''}`}
            data-testid="editor-error"
            onClick={() => onJump(e)}
            title={e.file === null ? 'This file is not open in the editor' : 'Go to the error'}
          >
            <code className="ed-error-loc">{errorLocation(e)}</code>
            <span className="ed-error-msg">{e.message}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
