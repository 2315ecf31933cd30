// The AgentJet swarm-client SDK (plain Node): SwarmClient, episodes with deadlines and aborts, and
// SIGTERM handling. Any OpenAI-compatible library can make the episode's calls.
export { SwarmClient, type SwarmClientOptions, type CallOptions, type ClaimOptions, type AgreeSyncResponse, type AbortResponse } from './client';
export { SwarmError } from './errors';
export { taskIdOf, type TaskRef, type EpisodeContext, type EpisodeResult, type EpisodeFn, type EpisodeOptions, type EpisodeOutcome } from './episode';
export { installSignalHandlers, abortInFlight, inFlightEpisodes, type SignalHandlerOptions } from './inflight';
export { backoffMs, RETRY_DEFAULTS, type RetryOptions } from './retry';
export { runTaskClient, taskClientMode, loadJsonl, type TaskClientOptions, type TaskClientMode } from './task';
export type { ClaimResponse, EndRequest, EndResponse, EpisodeKind, Status } from '../shared/swarm-protocol';
