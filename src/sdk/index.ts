// The AgentJet swarm-client SDK (plain Node): SwarmClient, episodes with deadlines and aborts, and
// SIGTERM handling; and a reward-model scorer (ONNX on CPU via onnxruntime-node) for reward code. Any
// OpenAI-compatible library can make the episode's calls.
export {
  SwarmClient,
  type SwarmClientOptions,
  type CallOptions,
  type ClaimOptions,
  type AgreeSyncResponse,
  type AbortResponse,
} from './client';
export { SwarmError } from './errors';
export { caFromEnv, fetchTrusting } from './tls';
export {
  taskIdOf,
  type TaskRef,
  type EpisodeContext,
  type EpisodeResult,
  type EpisodeFn,
  type EpisodeOptions,
  type EpisodeOutcome,
} from './episode';
export { installSignalHandlers, abortInFlight, inFlightEpisodes, type SignalHandlerOptions } from './inflight';
export { backoffMs, RETRY_DEFAULTS, type RetryOptions } from './retry';
export { runTaskClient, taskClientMode, loadJsonl, type TaskClientOptions, type TaskClientMode } from './task';
export type { ClaimResponse, EndRequest, EndResponse, EpisodeKind, Status } from '../shared/swarm-protocol';
export { RewardModel, type RewardModelOptions } from './reward-model';
export { RewardEnsemble } from './reward-ensemble';
export { GroupJudge, type GroupJudgeOptions, type JudgeStats, type JudgeVerdict } from './group-judge';
export { judgePrompt, parseJudgeReply, type JudgedRollout } from '../shared/group-judge';
export {
  episodeConversation,
  ensembleScore,
  rewardModelPointerSource,
  REWARD_MODEL_POINTER_FILE,
  RewardModelPointerSchema,
  RM_SCORE_METRIC,
  VERIFIABLE_REWARD_METRIC,
  sigmoid,
  type Conversation,
  type EnsembleScore,
  type RewardEnsembleRef,
  type RewardModelManifest,
  type RewardModelPointer,
  type RewardModelRef,
} from '../shared/reward-model';
