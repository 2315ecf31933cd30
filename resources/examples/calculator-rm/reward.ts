// Calculator-agent with a learned reward: a rule (the final turn is a well-formed `#### N` answer line
// and no tool call went unread) combined with a reward model's score of the whole conversation. Pure:
// the score comes in as a number. The verifiable reward (the answer key) is only reported, as a metric,
// so the workbench can chart the reward model against it; it is not part of the reward.
import type { ChatMessage } from '../../../src/shared/chat';
import {
  goodProbability,
  RM_SCORE_METRIC,
  VERIFIABLE_REWARD_METRIC,
  type RewardModelManifest,
} from '../../../src/shared/reward-model';
import { assistantTurns } from '../../../src/shared/task';
import { TOOL_CALL_OPEN } from '../../../src/shared/tool-calls';
import { parseFinalAnswer } from '../calculator-agent/reward';

/**
 * How the reward model's score enters the reward: standardized, (score − mean) / std over its training
 * episodes (unbounded: a score the policy pushes past anything labelled keeps paying), or probability, the
 * model's P(good) in 0..1 (bounded like the verifiable reward it stands in for; a single model only).
 */
export const RM_FORMS = ['standardized', 'probability'] as const;
export type RmForm = (typeof RM_FORMS)[number];

export interface RewardWeights {
  /** Weight of the format rule (0..1 reward). */
  rule: number;
  /** Weight of the reward model's term. */
  rm: number;
  form: RmForm;
}

export const DEFAULT_WEIGHTS: RewardWeights = { rule: 1, rm: 1, form: 'standardized' };

/** 1 when the last assistant turn ends with a `#### N` line and every tool call could be read. */
export function formatRule(history: readonly ChatMessage[]): number {
  const turns = assistantTurns(history);
  const final = turns.at(-1);
  if (!final || (final.tool_calls ?? []).length > 0) return 0;
  const unread = turns.some((m) => (m.content ?? '').includes(TOOL_CALL_OPEN));
  return !unread && parseFinalAnswer(final.content) !== null ? 1 : 0;
}

export interface ScoredEpisode {
  history: readonly ChatMessage[];
  /** The env's answer-key reward: reported, never rewarded. */
  verifiable: number;
  /** The reward model's raw score (a logit), or null without a deployed model. */
  rmScore: number | null;
  /** Mean and std of the model's scores on its training episodes (from its manifest). */
  rmStats?: { mean: number; std: number };
  /** The model's loss (from its manifest): where its score's zero is, for the probability form. */
  rmLoss?: RewardModelManifest['loss'];
  /** An ensemble's std over its members' standardized scores (reported as `rm_std`). */
  rmStd?: number;
}

/** The reward and the metrics the episode reports (the chart reads rm_score and verifiable_reward). */
export function combineReward(
  e: ScoredEpisode,
  w: RewardWeights = DEFAULT_WEIGHTS,
): { reward: number; metrics: Record<string, number> } {
  const rule = formatRule(e.history);
  const metrics: Record<string, number> = { rule_reward: rule, [VERIFIABLE_REWARD_METRIC]: e.verifiable };
  let reward = w.rule * rule;
  if (e.rmScore !== null) {
    const stats = e.rmStats ?? { mean: 0, std: 1 };
    const standardized = (e.rmScore - stats.mean) / Math.max(stats.std, 1e-6);
    let term = standardized;
    if (w.form === 'probability') {
      if (e.rmLoss === undefined || e.rmStats === undefined)
        throw new Error('the probability form needs a single reward model (an ensemble scores standardized)');
      term = goodProbability(e.rmScore, { loss: e.rmLoss, scoreStats: e.rmStats });
    }
    metrics[RM_SCORE_METRIC] = e.rmScore;
    metrics['rm_reward'] = term;
    if (e.rmStd !== undefined) metrics['rm_std'] = e.rmStd;
    reward += w.rm * term;
  }
  return { reward, metrics };
}

/**
 * Weights from AGENTJET_RULE_WEIGHT / AGENTJET_RM_WEIGHT (default 1 each) and the form from AGENTJET_RM_FORM
 * (default standardized); a bad value is an error.
 */
export function weightsFromEnv(env: Readonly<Record<string, string | undefined>>): RewardWeights {
  const read = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const v = Number(raw);
    if (!Number.isFinite(v)) throw new Error(`${name} must be a number, got ${JSON.stringify(raw)}`);
    return v;
  };
  const rawForm = env['AGENTJET_RM_FORM'];
  const form = rawForm === undefined || rawForm === '' ? DEFAULT_WEIGHTS.form : RM_FORMS.find((f) => f === rawForm);
  if (form === undefined)
    throw new Error(`AGENTJET_RM_FORM must be one of ${RM_FORMS.join(', ')}, got ${JSON.stringify(rawForm)}`);
  return {
    rule: read('AGENTJET_RULE_WEIGHT', DEFAULT_WEIGHTS.rule),
    rm: read('AGENTJET_RM_WEIGHT', DEFAULT_WEIGHTS.rm),
    form,
  };
}
