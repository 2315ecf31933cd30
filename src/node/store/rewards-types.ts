// The store's learned-rewards methods (labels, episode metrics, reward models); `Store` extends this.
import type { Label, LabelKind, LabelSummary, RewardModelRow } from '../../shared/rewards-api';
import type { RewardModelManifest } from '../../shared/reward-model';

export interface LabelInput {
  kind: LabelKind;
  episodeId: string;
  /** `prefer` only: the episode `episodeId` is preferred over (same task group). */
  otherEpisodeId?: string | undefined;
  author: string;
  source: string;
  createdAt: number;
}

export interface RewardModelRecord {
  version: number;
  folder: string;
  sha256: string;
  createdAt: number;
  manifest: RewardModelManifest;
}

export interface MetricPair {
  episodeId: string;
  createdAt: number;
  codeVersion: string | null;
  x: number;
  y: number;
}

export interface RewardsStore {
  /**
   * Stores a label with the episodes' task and code versions. The episodes must exist (`not_found`);
   * a pair must be two episodes of one task (`invalid_input`). Replaces the author's earlier label of
   * the same episode (point) or pair (either order).
   */
  putLabel(runId: string, input: LabelInput): { label: Label; replaced: boolean };
  deleteLabel(runId: string, labelId: number): void;
  /** Newest first (the newest `limit` when given); of one episode (either side of a pair) when given. */
  listLabels(runId: string, episodeId?: string, limit?: number): Label[];
  labelSummary(runId: string): LabelSummary;
  /** Episodes with a point label, and the pairs (as "a\0b" with a < b) already labelled. */
  labelledSets(runId: string): { points: Set<string>; pairs: Set<string> };

  /** The metrics an episode reported at `end` (replacing earlier ones); the episode must exist. */
  putEpisodeMetrics(runId: string, episodeId: string, metrics: Readonly<Record<string, number>>): void;
  episodeMetrics(runId: string, episodeId: string): Record<string, number> | null;
  /** Episodes that reported both metrics, the newest `limit` of them, oldest first. */
  metricPairs(runId: string, x: string, y: string, limit: number): MetricPair[];

  /** Records a trained reward model (a version is written once). */
  putRewardModel(runId: string, record: RewardModelRecord): void;
  /** Oldest first. */
  listRewardModels(runId: string): RewardModelRow[];
  /** `not_found` for an unknown version. */
  getRewardModel(runId: string, version: number): RewardModelRecord & { deployedAt: number | null };
  setRewardModelDeployed(runId: string, version: number, at: number): void;
}

/** The pair key of two episodes (order-free). */
export const pairKey = (a: string, b: string): string => (a < b ? `${a}\0${b}` : `${b}\0${a}`);
