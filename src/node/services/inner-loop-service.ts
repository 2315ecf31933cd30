// The workbench's side of quarantine, fork and probes (docs/inner-loop.md): asks the live worker
// (admin API, parsed with the shared schemas) and records what it did in the store — which
// episodes a quarantine holds, the stored call a fork starts from, each probe's points over
// weight versions.
import type { ProbePoint, ProbeSpec } from '../../shared/inner-loop';
import type { ForkResult, QuarantineResult } from '../../shared/swarm-inner-loop';
import { WorkbenchError } from '../../shared/workbench-api';
import type { ForkRewards, RewardTryResult } from '../../shared/inner-loop';
import { forkRewards } from '../reward-try/fork-reward';
import { tryReward } from '../reward-try/reward-try';
import { RewardLoadError } from '../reward-try/runner';
import type { Store } from '../store/index';
import type { WorkerClient } from '../worker-client';

export interface InnerLoopDeps {
  store: Store;
  /** Where reward try bundles (the client runner's cache) and the packages it resolves. */
  cacheDir: string;
  nodePaths: string[];
  /** The live run's file and edited files for reward try (ClientService.editedFile). */
  editedFile: (path: string, content?: string) => { file: string; overlay: Record<string, string> };
  /** The live run and its worker; null when not connected. */
  live: () => { runId: string; http: WorkerClient } | null;
  /** The live run's reward file (workspace-relative), for the rewards of fork continuations; none: no rewards. */
  rewardPath?: () => Promise<string | null>;
  /** Writes pending worker events (episode rows) before reading the store. */
  flush: () => void;
  now?: () => number;
}

/** Continuations whose text contains the probe's `contains`, and their mean per-token logprob. */
export function probePoint(spec: ProbeSpec, fork: ForkResult, at: number): ProbePoint {
  const lps = fork.continuations.flatMap((c) => c.logprobs);
  return {
    weightVersion: fork.weightVersion,
    at,
    k: fork.continuations.length,
    hits: fork.continuations.filter((c) => c.text.includes(spec.contains)).length,
    meanLogprob: lps.length === 0 ? null : lps.reduce((a, b) => a + b, 0) / lps.length,
  };
}

interface ForkParams {
  runId: string;
  episodeId: string;
  callIndex: number;
  k: number;
  temperature: number;
  maxTokens?: number | undefined;
  edit?: { content: string } | undefined;
}

/** Fork timeouts: K generations of up to 4096 tokens can take a while on a CPU. */
const FORK_TIMEOUT_MS = 300_000;

export class InnerLoopService {
  constructor(private readonly d: InnerLoopDeps) {}

  private requireLive(): { runId: string; http: WorkerClient } {
    const live = this.d.live();
    if (!live) throw new WorkbenchError('not_connected', 'not connected: connect to a local or remote worker first');
    return live;
  }

  private now(): number {
    return (this.d.now ?? Date.now)() / 1000;
  }

  async quarantine(codeVersion: string): Promise<QuarantineResult> {
    const { runId, http } = this.requireLive();
    const r = await http.call('quarantine', { body: { codeVersion } });
    this.d.flush();
    this.d.store.markQuarantined(runId, codeVersion, r.episodeIds, this.now());
    return r;
  }

  async release(codeVersion: string): Promise<QuarantineResult> {
    const { runId, http } = this.requireLive();
    const r = await http.call('releaseQuarantine', { body: { codeVersion } });
    this.d.store.markReleased(runId, r.episodeIds, this.now());
    return r;
  }

  async quarantineList(runId: string) {
    this.d.flush();
    const live = this.d.live();
    const held = live && live.runId === runId ? (await live.http.call('quarantined', {})).quarantined : null;
    return { marks: this.d.store.quarantineMarks(runId), held };
  }

  /** Forks a stored call (its timeline is sent along, so any stored episode of the run can be forked). */
  async fork(p: ForkParams): Promise<ForkResult> {
    const { runId, http } = this.requireLive();
    if (p.runId !== runId)
      throw new WorkbenchError('not_live', 'forks sample with the live worker: open an episode of the live run');
    this.d.flush();
    const timeline = this.d.store.episodeTimelines(runId, p.episodeId).find((t) => t.callIndex === p.callIndex);
    if (!timeline) throw new WorkbenchError('not_found', `episode ${p.episodeId} has no stored call ${p.callIndex}`);
    const body = {
      episodeId: p.episodeId,
      callIndex: p.callIndex,
      k: p.k,
      temperature: p.temperature,
      ...(p.maxTokens !== undefined ? { maxTokens: p.maxTokens } : {}),
      ...(p.edit ? { edit: p.edit } : {}),
      timeline,
    };
    return http.call('fork', { body }, { timeoutMs: FORK_TIMEOUT_MS });
  }

  /** A fork, and the reward each continuation (and the recorded turn) would get under the run's reward code. */
  async forkWithRewards(p: ForkParams): Promise<ForkResult & { rewards: ForkRewards }> {
    const fork = await this.fork(p);
    const path = (await this.d.rewardPath?.()) ?? null;
    const { file, overlay } = path === null ? { file: null, overlay: {} } : this.d.editedFile(path);
    const timeline = this.d.store.episodeTimelines(p.runId, p.episodeId).find((t) => t.callIndex === p.callIndex);
    if (!timeline) throw new WorkbenchError('not_found', `episode ${p.episodeId} has no stored call ${p.callIndex}`);
    const rewards = await forkRewards({
      file,
      overlay,
      timeline,
      taskId: this.d.store.getEpisode(p.runId, p.episodeId).taskId,
      edit: p.edit,
      continuations: fork.continuations,
      cacheDir: this.d.cacheDir,
      nodePaths: this.d.nodePaths,
    });
    return { ...fork, rewards };
  }

  async rewardTry(p: {
    path: string;
    content?: string | undefined;
    last: number;
    task?: string | undefined;
    codeVersion?: string | undefined;
    exportName?: string | undefined;
    timeoutMs: number;
  }): Promise<RewardTryResult> {
    const { runId } = this.requireLive();
    this.d.flush();
    const { file, overlay } = this.d.editedFile(p.path, p.content);
    try {
      return await tryReward({
        store: this.d.store,
        runId,
        file,
        overlay,
        last: p.last,
        perEpisodeMs: p.timeoutMs,
        cacheDir: this.d.cacheDir,
        nodePaths: this.d.nodePaths,
        ...(p.task !== undefined ? { task: p.task } : {}),
        ...(p.codeVersion !== undefined ? { codeVersion: p.codeVersion } : {}),
        ...(p.exportName !== undefined ? { exportName: p.exportName } : {}),
      });
    } catch (err) {
      if (err instanceof RewardLoadError) throw new WorkbenchError('reward_load_failed', err.message);
      throw err;
    }
  }

  async saveProbe(name: string, spec: ProbeSpec) {
    const { runId } = this.requireLive();
    const id = this.d.store.putProbe(runId, name, spec, this.now());
    const probe = this.d.store.listProbes(runId).find((q) => q.id === id);
    if (!probe) throw new Error(`probe ${id} was not stored`);
    return { probe, point: await this.runProbe(runId, id, spec) };
  }

  async runProbes(): Promise<{ points: ProbePoint[] }> {
    const { runId } = this.requireLive();
    const points: ProbePoint[] = [];
    for (const probe of this.d.store.listProbes(runId)) points.push(await this.runProbe(runId, probe.id, probe.spec));
    return { points };
  }

  probes(runId: string) {
    return { probes: this.d.store.listProbes(runId).map((p) => ({ ...p, points: this.d.store.probePoints(p.id) })) };
  }

  private async runProbe(runId: string, id: number, spec: ProbeSpec): Promise<ProbePoint> {
    const fork = await this.fork({ runId, ...spec });
    const point = probePoint(spec, fork, this.now());
    this.d.store.putProbePoint(
      id,
      point,
      fork.continuations.map((c) => c.text),
    );
    return point;
  }
}
