// Benchmark `store`: the workbench's SQLite store at issue 6's scale — episode rows ingested in
// 250 ms-sized batches (rows/s), 100,000 episodes paged with each filter and order (ms per page
// with its total), episodes stored with their timelines and merged samples (episodes/s, bytes
// per episode on disk vs. their JSON), an episode's inspector detail (ms), and the run list.
// Run: `tsx bench/store.ts [--episodes 100000] [--detailed 1000] [--calls 10]`.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mergeTimelines, type Timeline } from '../src/shared/timeline/index';
import { conversation, say } from '../src/shared/timeline/testing/scenes';
import type { EpisodeFilter } from '../src/shared/workbench-api';
import { openStore } from '../src/node/store/store';
import type { EpisodeOrder, Store } from '../src/node/store/types';
import { argValue, round } from './engine';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

function timeMs(fn: () => unknown, repeats = 5): number {
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return round(median(times), 2);
}

function ingestRows(store: Store, runId: string, n: number): number {
  const t0 = performance.now();
  const batch = 500;
  for (let start = 0; start < n; start += batch) {
    store.transaction(() => {
      for (let i = start; i < Math.min(n, start + batch); i++) {
        store.putEpisode(runId, {
          episodeId: `e${i}`,
          kind: i % 5 === 0 ? 'eval' : 'train',
          status: i % 7 === 0 ? 'open' : 'ended',
          taskId: `task_${i % 500}`,
          clientId: `c${i % 8}`,
          codeVersion: `v${Math.floor(i / 10_000)}`,
          role: null,
          reward: i % 7 === 0 ? null : (i % 10) / 10,
          success: i % 7 === 0 ? null : i % 2 === 0,
          calls: 3,
          createdAt: 1_000 + i,
          finishedAt: i % 7 === 0 ? null : 1_001 + i,
        });
      }
    });
  }
  return round(n / ((performance.now() - t0) / 1000), 0);
}

function episodeCalls(episodeId: string, calls: number): Timeline[] {
  return conversation(
    episodeId,
    Array.from({ length: calls }, (_, k) => ({
      reply: say(`step ${k}: computing the next part`, ['calc', `{"expression":"${k}*17+4"}`]),
    })),
  );
}

export async function benchStore(args: string[]): Promise<Record<string, unknown>> {
  const episodes = Number(argValue(args, '--episodes') ?? 100_000);
  const detailed = Number(argValue(args, '--detailed') ?? 1_000);
  const calls = Number(argValue(args, '--calls') ?? 10);
  const dir = mkdtempSync(join(tmpdir(), 'agentjet-bench-store-'));
  const path = join(dir, 'workbench.db');
  const store = openStore(path);
  try {
    store.createRun({
      runId: 'big',
      name: 'big',
      mode: 'local',
      workerUrl: 'u',
      model: 'builtin',
      example: null,
      config: {},
      createdAt: 1,
    });
    const rowsPerS = ingestRows(store, 'big', episodes);

    const pages: Record<string, number> = {};
    const filters: [string, EpisodeFilter][] = [
      ['all', {}],
      ['client', { clientId: 'c3' }],
      ['task', { task: 'task_4' }],
      ['status', { status: 'ended' }],
      ['reward', { minReward: 0.5 }],
      ['client+kind', { clientId: 'c3', kind: 'train' }],
    ];
    const orders: EpisodeOrder[] = ['newest', 'reward_asc'];
    for (const [name, filter] of filters)
      for (const order of orders)
        pages[`${name}/${order}`] = timeMs(() => store.episodesPage('big', filter, 1_000, 200, order));

    store.createRun({
      runId: 'detailed',
      name: 'detailed',
      mode: 'local',
      workerUrl: 'u',
      model: 'builtin',
      example: null,
      config: {},
      createdAt: 2,
    });
    store.putVocab(
      'detailed',
      Array.from({ length: 150_000 }, (_, i) => `tok${i}`),
    );
    const sizeBefore = statSync(path).size;
    let jsonBytes = 0;
    const t0 = performance.now();
    for (let start = 0; start < detailed; start += 50) {
      store.transaction(() => {
        for (let i = start; i < Math.min(detailed, start + 50); i++) {
          const id = `d${i}`;
          const timelines = episodeCalls(id, calls);
          const merged = mergeTimelines(timelines, { mode: 'linear', level: 'token' });
          jsonBytes += JSON.stringify(timelines).length + JSON.stringify(merged.samples).length;
          store.putEpisode('detailed', {
            episodeId: id,
            kind: 'train',
            status: 'ended',
            taskId: 't',
            clientId: 'c',
            codeVersion: 'v',
            role: null,
            reward: 1,
            success: true,
            calls,
            createdAt: i,
            finishedAt: i,
          });
          store.putEpisodeTimelines('detailed', id, timelines, merged);
        }
      });
    }
    const detailedPerS = round(detailed / ((performance.now() - t0) / 1000), 0);
    store.close();
    const reopened = openStore(path);
    const diskPerEpisode = round((statSync(path).size - sizeBefore) / detailed, 0);
    const detailMs = timeMs(() => reopened.episodeDetail('detailed', 'd7'));
    const runsMs = timeMs(() => reopened.listRuns(null));
    reopened.close();
    return {
      bench: 'store',
      episodes,
      episodeRowsPerS: rowsPerS,
      pageMs: pages,
      detailedEpisodes: detailed,
      callsPerEpisode: calls,
      detailedEpisodesPerS: detailedPerS,
      bytesPerDetailedEpisode: diskPerEpisode,
      jsonBytesPerDetailedEpisode: round(jsonBytes / detailed, 0),
      episodeDetailMs: detailMs,
      listRunsMs: runsMs,
    };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('bench/store.ts')) {
  benchStore(process.argv.slice(2)).then(
    (summary) => console.log(JSON.stringify(summary)),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(1);
    },
  );
}
