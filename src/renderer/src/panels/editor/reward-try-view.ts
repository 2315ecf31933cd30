// Reward try in the editor (pure): which file a try runs, the try form as the API's params, the
// old-vs-new histogram as bars, and a changed episode's comparison for the inspector.
import { rewardFileOf, type ChangedEpisode, type RewardVerdict } from '../../../../shared/inner-loop';
import type { WorkbenchParams } from '../../../../shared/workbench-api';

const REWARD_LIKE = /(^|\/)[^/]*reward[^/]*\.(ts|js|mjs|py)$/i;

/** The open file when it is an editable reward file, else the run's `reward.*` file; null when there is none. */
export function tryTarget(files: readonly { path: string; editable: boolean }[], active: string | null): string | null {
  const open = active === null ? undefined : files.find((f) => f.path === active);
  if (open?.editable && REWARD_LIKE.test(open.path)) return open.path;
  return rewardFileOf(files);
}

export interface TryForm {
  last: string;
  task: string;
  codeVersion: string;
}

export const DEFAULT_TRY_FORM: TryForm = { last: '200', task: '', codeVersion: '' };

/** The form as `rewardTry` params, or what is wrong with it. */
export function tryParams(
  form: TryForm,
  path: string,
  content: string | undefined,
): { ok: true; params: WorkbenchParams<'rewardTry'> } | { ok: false; error: string } {
  const last = Number(form.last);
  if (!Number.isInteger(last) || last < 1 || last > 5000) return { ok: false, error: 'N: a whole number 1–5000' };
  return {
    ok: true,
    params: {
      path,
      last,
      ...(content !== undefined ? { content } : {}),
      ...(form.task.trim() ? { task: form.task.trim() } : {}),
      ...(form.codeVersion ? { codeVersion: form.codeVersion } : {}),
    },
  };
}

export interface HistogramBar {
  lo: number;
  hi: number;
  old: number;
  new: number;
}

/** The two histograms (same bins) side by side, and the tallest bar (for scaling). */
export function histogramBars(v: Pick<RewardVerdict, 'old' | 'new'>): { bars: HistogramBar[]; max: number } {
  const bars = v.new.histogram.map((b, i) => ({
    lo: b.lo,
    hi: b.hi,
    new: b.count,
    old: v.old.histogram[i]?.count ?? 0,
  }));
  const max = bars.reduce((m, b) => Math.max(m, b.old, b.new), 0);
  return { bars, max };
}

export const fmtReward = (r: number | null): string => (r === null ? '—' : Number(r.toFixed(4)).toString());
const fmtSuccess = (s: boolean | null): string => (s === null ? '—' : s ? 'yes' : 'no');

export function fmtDelta(d: number | null): string {
  if (d === null) return 'new';
  return `${d > 0 ? '+' : ''}${Number(d.toFixed(4))}`;
}

/** What the inspector shows beside a changed episode: recorded vs tried reward and success. */
export function changedCompare(c: ChangedEpisode, file: string) {
  return {
    title: `reward try of ${file.split('/').at(-1) ?? file}`,
    rows: [
      { label: 'reward', old: fmtReward(c.oldReward), new: fmtReward(c.newReward) },
      { label: 'success', old: fmtSuccess(c.oldSuccess), new: fmtSuccess(c.newSuccess) },
    ],
  };
}
