// Small pure formatters shared by the panels.
import type { Activity } from '../../shared/workbench-api';

/** "just now", "12s ago", "5m ago", "3h ago", "2d ago"; "—" for never. */
export function relativeTime(now: number, t: number | null): string {
  if (t === null || !Number.isFinite(t)) return '—';
  const s = Math.max(0, Math.floor((now - t) / 1000));
  if (s < 2) return 'just now';
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}

const PHASES: Record<Activity['phase'], string> = {
  starting_worker: 'Starting worker',
  loading_model: 'Loading model',
  compiling: 'Compiling',
  starting_clients: 'Starting clients',
  connecting: 'Connecting',
  stopping: 'Stopping',
};

export function activityText(a: Activity): string {
  const pct = a.fraction === null ? '' : ` ${Math.round(a.fraction * 100)}%`;
  return `${PHASES[a.phase]}${a.detail ? ` — ${a.detail}` : ''}${pct}`;
}

/** A local date-time, compact: "2026-11-30 14:05". */
export function dateTime(t: number): string {
  const d = new Date(t);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

export function percent(x: number | null): string {
  return x === null || !Number.isFinite(x) ? '—' : `${Math.round(x * 100)}%`;
}

/** "14:05:09" (24-hour local time) for log lines. */
export function clockTime(t: number): string {
  const d = new Date(t);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
