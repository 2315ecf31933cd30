// AgentJet's training config (the AgentJetJob config dict a client's `sync_train_config` sends as
// YAML) mapped onto our training settings: the settings with a counterpart here are applied, every
// other leaf is reported as ignored, and a value we cannot take (an unknown collection method, an
// out-of-range number) is reported as ignored with the reason. Pure.
import { StrategySchema, TrainingConfigPatchSchema, type TrainingConfig } from '../swarm-protocol';
import { COLLECTION_METHODS } from './protocol';

export interface ConfigSync {
  patch: Partial<TrainingConfig>;
  /** AgentJet path → the value taken from it. */
  applied: Record<string, unknown>;
  /** AgentJet paths not applied (with the reason when the setting exists here but its value does not fit). */
  ignored: string[];
}

/** The leaves of a YAML document as dotted paths (lists are leaves). */
export function leaves(doc: unknown, prefix = ''): [string, unknown][] {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return prefix === '' ? [] : [[prefix, doc]];
  return Object.entries(doc).flatMap(([k, v]) => leaves(v, prefix === '' ? k : `${prefix}.${k}`));
}

type Mapper = (
  value: unknown,
  all: ReadonlyMap<string, unknown>,
) => { patch: Partial<TrainingConfig> } | { reason: string };

const num = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v)
    ? v
    : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))
      ? Number(v)
      : null;

const numeric =
  (key: keyof TrainingConfig): Mapper =>
  (v) => {
    const n = num(v);
    return n === null ? { reason: 'not a number' } : { patch: { [key]: n } };
  };

const STRATEGY_OF = new Map<unknown, TrainingConfig['strategy']>(
  Object.entries(COLLECTION_METHODS).map(([s, m]) => [m, StrategySchema.parse(s)]),
);

/** The AgentJet paths we take, each onto our settings. */
const MAPPERS: Record<string, Mapper> = {
  'ajet.swarm_mode_sample_collection_method': (v) => {
    const strategy = STRATEGY_OF.get(v);
    return strategy ? { patch: { strategy } } : { reason: `unknown collection method ${JSON.stringify(v)}` };
  },
  // AgentJet's batch is in tasks; "enough episodes" counts train_batch_size × num_repeat episodes.
  'ajet.data.train_batch_size': (v, all) => {
    const n = num(v);
    if (n === null) return { reason: 'not a number' };
    const episodes = all.get('ajet.swarm_mode_sample_collection_method') === COLLECTION_METHODS.C1;
    const repeat = num(all.get('ajet.rollout.num_repeat')) ?? 1;
    return { patch: { batch: episodes ? n * repeat : n } };
  },
  'ajet.rollout.num_repeat': numeric('groupSize'),
  'ajet.trainer_common.algorithm.adv_estimator': (v) =>
    v === 'grpo' || v === 'rloo' || v === 'reinforce'
      ? { patch: { algo: v } }
      : { reason: `estimator ${JSON.stringify(v)} is not one of grpo, rloo, reinforce` },
  'ajet.trainer_common.optim.lr': numeric('lr'),
  'ajet.trainer_common.optim.grad_clip': numeric('maxGradNorm'),
  'ajet.trainer_common.kl_loss_coef': (v, all) => {
    const n = num(v);
    if (n === null) return { reason: 'not a number' };
    return { patch: { klCoef: all.get('ajet.trainer_common.use_kl_loss') === false ? 0 : n } };
  },
  'ajet.trainer_common.use_kl_loss': (v, all) =>
    v === false
      ? { patch: { klCoef: 0 } }
      : all.has('ajet.trainer_common.kl_loss_coef')
        ? { patch: {} }
        : { reason: 'needs kl_loss_coef' },
  'ajet.trainer_common.save_freq': numeric('checkpointEvery'),
  'ajet.rollout.temperature': numeric('temperature'),
  'ajet.rollout.top_p': numeric('topP'),
  'ajet.rollout.max_response_length_in_one_turn': numeric('defaultMaxTokens'),
  'ajet.context_tracker.timeline_merging_policy.timeline_compare_level': (v) =>
    v === 'token'
      ? { patch: { level: 'token' } }
      : v === 'text' || v === 'text_and_image'
        ? { patch: { level: 'text' } }
        : { reason: `compare level ${JSON.stringify(v)} is not token or text` },
};

/** Which AgentJet settings apply here, and the patch they make to `current`. */
export function mapAgentJetConfig(doc: unknown, current: TrainingConfig): ConfigSync {
  const all = new Map(leaves(doc));
  const patch: Partial<TrainingConfig> = {};
  const applied: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const [path, value] of all) {
    const mapper = MAPPERS[path];
    if (!mapper) {
      ignored.push(path);
      continue;
    }
    const out = mapper(value, all);
    if ('reason' in out) {
      ignored.push(`${path} (${out.reason})`);
      continue;
    }
    const checked = TrainingConfigPatchSchema.safeParse({ ...patch, ...out.patch });
    if (!checked.success) {
      ignored.push(`${path} (${checked.error.issues[0]?.message ?? 'out of range'})`);
      continue;
    }
    Object.assign(patch, out.patch);
    applied[path] = value;
  }
  // A reply length above this server's limit is taken as the limit.
  if (patch.defaultMaxTokens !== undefined && patch.defaultMaxTokens > current.maxTokensLimit)
    patch.defaultMaxTokens = current.maxTokensLimit;
  return { patch, applied, ignored };
}
