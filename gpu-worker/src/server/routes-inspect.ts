// Inspection routes (admin token): episode listing and inspection (timelines and their merged samples),
// evaluation results, the vocabulary's pieces. The config and control routes are in routes-control.ts.
import type { FastifyInstance } from 'fastify';
import { workerRoutes } from '../../../src/shared/worker-routes';
import { summarize } from '../swarm/episodes';
import type { TokenMatcher } from '../swarm/keys';
import type { Swarm } from '../swarm/swarm';
import { requireRole } from './auth';
import { parseBody } from './http';
import { onRoute } from './route-table';

/** Token ids decoded per engine call when listing the vocabulary. */
export const VOCAB_CHUNK = 4096;

/** Every token id decoded alone (special tokens kept), in id order, a chunk of ids per call. */
export async function decodeVocabulary(
  size: number,
  decode: (sequences: number[][]) => Promise<string[]>,
  chunk = VOCAB_CHUNK,
): Promise<string[]> {
  const pieces: string[] = [];
  for (let start = 0; start < size; start += chunk) {
    const ids = Array.from({ length: Math.min(chunk, size - start) }, (_, i) => [start + i]);
    const texts = await decode(ids);
    if (texts.length !== ids.length)
      throw new Error(`decode returned ${texts.length} texts for ${ids.length} token ids`);
    pieces.push(...texts);
  }
  return pieces;
}

export function registerInspectionRoutes(app: FastifyInstance, deps: { swarm: Swarm; matcher: TokenMatcher }): void {
  const { swarm, matcher } = deps;
  const admin = (headers: Parameters<typeof requireRole>[0]): void => void requireRole(headers, matcher, 'admin');
  // The vocabulary never changes while the model is loaded: decoded once, on first request.
  let vocab: Promise<string[]> | null = null;

  onRoute(app, 'episodes', async (req) => {
    admin(req.headers);
    const q = parseBody(workerRoutes.episodes.query, req.query);
    return {
      episodes: swarm.episodeSummaries({
        limit: q.limit,
        ...(q.status ? { status: q.status } : {}),
        ...(q.clientId ? { clientId: q.clientId } : {}),
      }),
    };
  });

  onRoute(app, 'episode', async (req) => {
    admin(req.headers);
    const ep = swarm.getEpisode(parseBody(workerRoutes.episode.params, req.params).id);
    return { episode: summarize(ep), result: ep.result ?? null, timelines: ep.calls };
  });

  onRoute(app, 'merged', async (req) => {
    admin(req.headers);
    return swarm.mergedSamples(parseBody(workerRoutes.merged.params, req.params).id);
  });

  onRoute(app, 'vocab', async (req) => {
    admin(req.headers);
    const size = swarm.engine.info?.vocabSize ?? 0;
    vocab ??= decodeVocabulary(
      size,
      async (sequences) => (await swarm.engine.call('decode', { sequences, skipSpecialTokens: false })).texts,
    );
    const pending = vocab;
    try {
      return { pieces: await pending };
    } catch (err) {
      if (vocab === pending) vocab = null; // an engine restart or failure: try again next time
      throw err;
    }
  });

  onRoute(app, 'eval', async (req) => {
    admin(req.headers);
    return { eval: swarm.evalResults() };
  });
}
