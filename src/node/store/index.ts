// The workbench's SQLite store (DESIGN §6): `openStore(path)` → `Store` (see types.ts).
export { openStore, DEFAULT_LOG_CAP, type StoreOptions } from './store';
export type {
  EpisodeInput,
  EpisodeOrder,
  MergedEpisode,
  NewCodeVersion,
  NewRun,
  RunMode,
  Store,
  StoredRun,
} from './types';
export type { LabelInput, MetricPair, RewardModelRecord, RewardsStore } from './rewards-types';
