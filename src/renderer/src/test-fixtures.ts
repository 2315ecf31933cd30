// Builders for contract values used by the renderer's unit tests (never imported by app code).
import type { ClientRow, CodeMarker, EpisodeRow, EvalPoint, Session, StepPoint } from '../../shared/workbench-api';

export function stepPoint(step: number, over: Partial<StepPoint> = {}): StepPoint {
  return {
    step,
    weightVersion: step,
    time: 1_000 + step * 10,
    episodes: 8,
    rewardMean: step / 10,
    rewardMin: step / 10 - 0.5,
    rewardMax: step / 10 + 0.5,
    successRate: 0.5,
    samples: 10,
    tokensBefore: 1000,
    tokensAfter: 400,
    compressionRatio: 2.5,
    samplesPerEpisode: 1.25,
    rolloutS: 3,
    updateS: 1,
    loss: 0.1,
    entropy: null,
    approxKl: null,
    breakCounts: {},
    ...over,
  };
}

export function evalPoint(weightVersion: number, successRate: number | null = 0.5): EvalPoint {
  return { weightVersion, time: 2_000 + weightVersion, episodes: 16, rewardMean: 0.3, successRate };
}

export function marker(codeVersion: string, step: number, time = 5_000 + step): CodeMarker {
  return { codeVersion, previousCodeVersion: null, time, step };
}

export function session(runId: string, over: Partial<Session> = {}): Session {
  return {
    runId,
    mode: 'local',
    workerUrl: 'http://127.0.0.1:1234',
    state: 'running',
    model: 'builtin',
    example: 'calculator-agent',
    step: 0,
    weightVersion: 0,
    strategy: 'C1',
    progress: null,
    poolEpisodes: 0,
    activity: null,
    error: null,
    startedAt: 1,
    ...over,
  };
}

export function episodeRow(episodeId: string, over: Partial<EpisodeRow> = {}): EpisodeRow {
  return {
    episodeId,
    kind: 'train',
    status: 'ended',
    taskId: 't1',
    clientId: 'c1',
    codeVersion: 'abcdef0123',
    role: null,
    reward: 1,
    success: true,
    calls: 2,
    createdAt: 1,
    finishedAt: 2,
    hasTimelines: true,
    ...over,
  };
}

export function clientRow(clientId: string, over: Partial<ClientRow> = {}): ClientRow {
  return {
    clientId,
    local: true,
    status: 'running',
    pid: 100,
    codeVersion: 'abcdef0123456789',
    claimed: 3,
    ended: 2,
    aborted: 0,
    expired: 0,
    openEpisodes: 1,
    restarts: 0,
    lastActivityAt: 1_000,
    ...over,
  };
}
