// LabelsService: the workbench's labels (DESIGN §10) — put/delete/list, the label queue (scored with the
// run's newest reward model through the SDK's onnxruntime-node scorer, scores cached per model), JSONL
// import/export, and an episode's conversation as the reward model reads it. Works on any stored run.
import { userInfo } from 'node:os';
import { scoreCenter, type Conversation } from '../../shared/reward-model';
import type { Label, NewLabel, QueueItem } from '../../shared/rewards-api';
import { WorkbenchError, type WorkbenchParsedParams as P, type WorkbenchResult as R } from '../../shared/workbench-api';
import { RewardModel } from '../../sdk/reward-model';
import { pairKey } from '../store/rewards-types';
import type { Store } from '../store/types';
import { conversationFromTimelines } from './labels-dataset';
import { labelLine, parseLabelsJsonl } from './labels-io';
import { proposeLabels, type QueueCandidate } from './label-queue';

export interface LabelsServiceOptions {
  store: Store;
  /** Who labels (default: $AGENTJET_LABEL_AUTHOR, else the OS user name). */
  author?: string;
  /** Writes pending event batches before a read. */
  flush?: () => void;
  /** Episodes considered by the label queue (the newest ended ones with calls; default 160). */
  queueCandidates?: number;
}

export function defaultAuthor(): string {
  const env = process.env['AGENTJET_LABEL_AUTHOR'];
  if (env) return env;
  try {
    return userInfo().username || 'researcher';
  } catch {
    return 'researcher';
  }
}

interface ScoreCache {
  sha256: string;
  model: RewardModel;
  scores: Map<string, number>;
}

export class LabelsService {
  readonly author: string;
  private cache: ScoreCache | null = null;
  private loading: Promise<ScoreCache> | null = null;

  constructor(private readonly o: LabelsServiceOptions) {
    this.author = o.author ?? defaultAuthor();
  }

  private get store(): Store {
    this.o.flush?.();
    return this.o.store;
  }

  async labels(p: P<'labels'>): Promise<R<'labels'>> {
    const store = this.store;
    return {
      labels: store.listLabels(p.runId, p.episodeId, p.limit),
      summary: store.labelSummary(p.runId),
      author: this.author,
    };
  }

  async putLabel(p: P<'putLabel'>): Promise<R<'putLabel'>> {
    return {
      label: this.put(p.runId, p.label, { author: this.author, source: 'inspector', createdAt: Date.now() }).label,
    };
  }

  async deleteLabel(p: P<'deleteLabel'>): Promise<R<'deleteLabel'>> {
    this.store.deleteLabel(p.runId, p.labelId);
    return { ok: true };
  }

  /** All or nothing: one bad line (or unknown episode) imports none. */
  async importLabels(p: P<'importLabels'>): Promise<R<'importLabels'>> {
    const parsed = parseLabelsJsonl(p.jsonl);
    const store = this.store;
    let replaced = 0;
    store.transaction(() => {
      for (const l of parsed) {
        try {
          if (
            this.put(p.runId, l.label, {
              author: l.author ?? this.author,
              source: l.source ?? 'import',
              createdAt: l.createdAt ?? Date.now(),
            }).replaced
          )
            replaced++;
        } catch (err) {
          if (err instanceof WorkbenchError)
            throw new WorkbenchError(
              err.code === 'not_found' ? 'invalid_input' : err.code,
              `line ${l.line}: ${err.message}`,
            );
          throw err;
        }
      }
    });
    return { imported: parsed.length, replaced };
  }

  async exportLabels(p: P<'exportLabels'>): Promise<R<'exportLabels'>> {
    const labels = this.store.listLabels(p.runId).reverse();
    const conv = (id: string | null): Conversation | null =>
      id === null ? null : this.conversationOrNull(p.runId, id);
    const lines = labels.map((l) =>
      labelLine(l, p.conversations ? { one: conv(l.episodeId), other: conv(l.otherEpisodeId) } : undefined),
    );
    return { jsonl: lines.length > 0 ? `${lines.join('\n')}\n` : '', labels: labels.length };
  }

  async episodeConversation(p: P<'episodeConversation'>): Promise<R<'episodeConversation'>> {
    const c = this.conversationOrNull(p.runId, p.episodeId);
    if (!c)
      throw new WorkbenchError(
        'no_timelines',
        `episode ${p.episodeId} has no stored calls yet (it is running, or its timelines were not fetched)`,
      );
    return { messages: c.messages, tools: c.tools ?? null };
  }

  async labelQueue(p: P<'labelQueue'>): Promise<R<'labelQueue'>> {
    const store = this.store;
    const rows = store
      .episodesPage(p.runId, { status: 'ended' }, 0, this.o.queueCandidates ?? 160, 'newest')
      .rows.filter((r) => r.hasTimelines);
    const newest = store.listRewardModels(p.runId).at(-1) ?? null;
    let scores: Map<string, number> | null = null;
    let center = 0;
    let loss: string | null = null;
    if (newest) {
      const cache = await this.scorer(newest.folder, newest.sha256);
      const missing = rows
        .filter((r) => !cache.scores.has(r.episodeId))
        .flatMap((r) => {
          const c = this.conversationOrNull(p.runId, r.episodeId);
          return c ? [{ id: r.episodeId, c }] : [];
        });
      const got = await cache.model.scoreBatch(missing.map((m) => m.c));
      missing.forEach((m, i) => cache.scores.set(m.id, got[i]!));
      scores = cache.scores;
      loss = cache.model.manifest.loss;
      center = scoreCenter(cache.model.manifest);
    }
    const candidates: QueueCandidate[] = rows.map((r) => ({
      episodeId: r.episodeId,
      taskId: r.taskId,
      score: scores?.get(r.episodeId) ?? null,
    }));
    const sets = store.labelledSets(p.runId);
    const mode = p.mode !== 'auto' ? p.mode : loss === 'pointwise' ? 'points' : 'pairs';
    const request = {
      candidates,
      labelledPoints: sets.points,
      labelledPairs: sets.pairs,
      center,
      limit: p.limit,
      pairKey,
    };
    let items: QueueItem[] = proposeLabels({ ...request, mode });
    // No two episodes of one task left to compare: fall back to single episodes.
    if (items.length === 0 && p.mode === 'auto' && mode === 'pairs')
      items = proposeLabels({ ...request, mode: 'points' });
    return { rewardModel: newest?.version ?? null, candidates: candidates.length, items };
  }

  async dispose(): Promise<void> {
    const c = this.cache ?? (await this.loading?.catch(() => null)) ?? null;
    this.cache = null;
    await c?.model.dispose();
  }

  private put(
    runId: string,
    label: NewLabel,
    meta: { author: string; source: string; createdAt: number },
  ): { label: Label; replaced: boolean } {
    return this.o.store.putLabel(runId, { ...label, ...meta });
  }

  private conversationOrNull(runId: string, episodeId: string): Conversation | null {
    return conversationFromTimelines(this.o.store.episodeTimelines(runId, episodeId));
  }

  /** The newest reward model loaded once (its scores cached); a new one replaces it. */
  private async scorer(folder: string, sha256: string): Promise<ScoreCache> {
    if (this.cache?.sha256 === sha256) return this.cache;
    if (!this.loading) {
      this.loading = (async () => {
        const model = await RewardModel.load(folder, { sha256 });
        const old = this.cache;
        this.cache = { sha256, model, scores: new Map() };
        await old?.model.dispose();
        return this.cache;
      })().finally(() => (this.loading = null));
    }
    const loaded = await this.loading;
    return loaded.sha256 === sha256 ? loaded : this.scorer(folder, sha256);
  }
}
