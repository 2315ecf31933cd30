// Global error toasts: a short list of messages, newest last; the same message is not stacked twice.

export interface Toast {
  id: number;
  message: string;
  at: number;
}

export const MAX_TOASTS = 4;

export function addToast(list: readonly Toast[], toast: Toast): Toast[] {
  const rest = list.filter((t) => t.message !== toast.message);
  return [...rest, toast].slice(-MAX_TOASTS);
}

export function dismissToast(list: readonly Toast[], id: number): Toast[] {
  return list.filter((t) => t.id !== id);
}

/** A readable message for anything thrown. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return typeof err === 'string' ? err : 'unknown error';
}
