// Fork here (pure): the fork form as `forkCall` params, a continuation's summary (mean logprob,
// its reward under the run's reward code) and the probe a fork saves as.
import type { WorkbenchParams, WorkbenchResult } from '../../../../shared/workbench-api';

export interface ForkForm {
  k: string;
  temperature: string;
  maxTokens: string;
  /** Whether the last tool/user message is replaced by `edit`. */
  editOn: boolean;
  edit: string;
}

export const DEFAULT_FORK_FORM: ForkForm = { k: '4', temperature: '1', maxTokens: '96', editOn: false, edit: '' };

export type ForkParams = WorkbenchParams<'forkCall'>;
export type ForkAnswer = WorkbenchResult<'forkCall'>;

/** The form as params for one call of an episode, or what is wrong with it. */
export function forkParams(
  form: ForkForm,
  at: { runId: string; episodeId: string; callIndex: number },
): { ok: true; params: ForkParams } | { ok: false; error: string } {
  const k = Number(form.k);
  if (!Number.isInteger(k) || k < 1 || k > 32) return { ok: false, error: 'K: a whole number 1–32' };
  const temperature = Number(form.temperature);
  if (form.temperature.trim() === '' || !Number.isFinite(temperature) || temperature < 0 || temperature > 5)
    return { ok: false, error: 'temperature: a number 0–5' };
  const maxTokens = form.maxTokens.trim() === '' ? undefined : Number(form.maxTokens);
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 1 || maxTokens > 4096))
    return { ok: false, error: 'max tokens: a whole number 1–4096, or empty' };
  return {
    ok: true,
    params: {
      ...at,
      k,
      temperature,
      ...(maxTokens !== undefined ? { maxTokens } : {}),
      ...(form.editOn ? { edit: { content: form.edit } } : {}),
    },
  };
}

export function meanLogprob(logprobs: readonly number[]): number | null {
  return logprobs.length === 0 ? null : logprobs.reduce((a, b) => a + b, 0) / logprobs.length;
}

type Outcome = ForkAnswer['rewards']['continuations'][number];

/** A reward outcome as shown in a column head. */
export function rewardLabel(o: Outcome | null | undefined): { text: string; error: boolean } {
  if (!o) return { text: 'reward —', error: false };
  if (!o.ok) return { text: `reward error: ${o.error}`, error: true };
  const r = Number(o.reward.toFixed(4));
  return { text: `reward ${r}${o.success === undefined ? '' : o.success ? ' ✓' : ' ✗'}`, error: false };
}

/** The probe a fork is saved as: the same prefix and settings, a hit when a continuation contains `contains`. */
export function probeSpec(params: ForkParams, contains: string) {
  return {
    episodeId: params.episodeId,
    callIndex: params.callIndex,
    k: params.k ?? 4,
    temperature: params.temperature ?? 1,
    ...(params.maxTokens !== undefined ? { maxTokens: params.maxTokens } : {}),
    ...(params.edit ? { edit: params.edit } : {}),
    contains,
  };
}
