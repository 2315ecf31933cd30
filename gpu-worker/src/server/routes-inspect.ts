// Inspection routes (admin token): episode listing and inspection (timelines and their merged samples),
// evaluation results, the vocabulary's pieces. The config and control routes are in routes-control.ts.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { EpisodeStatusSchema } from '../../../src/shared/swarm-protocol';
import { summarize } from '../swarm/episodes';
import type { TokenMatcher } from '../swarm/keys';
import type { Swarm } from '../swarm/swarm';
import { requireRole } from './auth';
import { parseBody } from './http';

const ListQuery = z.object({
  status: EpisodeStatusSchema.optional(),
  clientId: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(10_000).default(100),
});
const IdParams = z.object({ id: z.string().max(300) });

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

  app.get('/swarm/v1/episodes', async (req) => {
    admin(req.headers);
    const q = parseBody(ListQuery, req.query);
    return {
      episodes: swarm.episodeSummaries({
        limit: q.limit,
        ...(q.status ? { status: q.status } : {}),
        ...(q.clientId ? { clientId: q.clientId } : {}),
      }),
    };
  });

  app.get('/swarm/v1/episodes/:id', async (req) => {
    admin(req.headers);
    const ep = swarm.getEpisode(parseBody(IdParams, req.params).id);
    return { episode: summarize(ep), result: ep.result ?? null, timelines: ep.calls };
  });

  app.get('/swarm/v1/episodes/:id/merged', async (req) => {
    admin(req.headers);
    return swarm.mergedSamples(parseBody(IdParams, req.params).id);
  });

  app.get('/swarm/v1/vocab', async (req) => {
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

  app.get('/swarm/v1/eval', async (req) => {
    admin(req.headers);
    return { eval: swarm.evalResults() };
  });
}
