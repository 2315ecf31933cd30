// Global error toasts (bottom right); each closes itself after a while or on click.
import { useEffect } from 'react';
import type { Toast } from '../store/toasts';

const TOAST_MS = 10_000;

function ToastItem({ toast, onClose }: { toast: Toast; onClose: (id: number) => void }) {
  useEffect(() => {
    const h = window.setTimeout(() => onClose(toast.id), TOAST_MS);
    return () => window.clearTimeout(h);
  }, [toast.id, onClose]);
  return (
    <div className="toast" role="alert" data-testid="toast">
      <span className="toast-msg">{toast.message}</span>
      <button type="button" className="toast-close" aria-label="Dismiss" onClick={() => onClose(toast.id)}>
        ×
      </button>
    </div>
  );
}

export function Toasts({ toasts, onClose }: { toasts: readonly Toast[]; onClose: (id: number) => void }) {
  return (
    <div className="toasts">
      {toasts.map((t) => (
        <ToastItem key={t.id} toast={t} onClose={onClose} />
      ))}
    </div>
  );
}
