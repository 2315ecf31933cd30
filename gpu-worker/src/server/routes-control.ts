// Control routes (admin token): training config, pause / start, checkpoint, reset, episode listing and
// inspection (timelines and their merged samples), evaluation results, the vocabulary's pieces, and
// the engine's logprobs of given token sequences (what a student worker's distillation asks its teacher).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { LogprobsSequenceSchema } from '../../../src/shared/engine-protocol';
import { EpisodeStatusSchema, TrainingConfigPatchSchema } from '../../../src/shared/swarm-protocol';
import { summarize } from '../swarm/episodes';
import { conflict } from '../errors';
import type { TokenMatcher } from '../swarm/keys';
import { resetRun, ResetRequestSchema, type ResetDeps } from '../swarm/run-reset';
import type { Swarm } from '../swarm/swarm';
import { requireRole } from './auth';
import { parseBody } from './http';

const ListQuery = z.object({
  status: EpisodeStatusSchema.optional(),
  clientId: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(10_000).default(100),
});
const IdParams = z.object({ id: z.string().max(300) });
/** POST /swarm/v1/logprobs: the sequences to score (the body limit bounds their tokens). */
export const LogprobsRequestSchema = z.object({ sequences: z.array(LogprobsSequenceSchema).min(1).max(4096) }).strict();

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

export function registerControlRoutes(
  app: FastifyInstance,
  deps: { swarm: Swarm; matcher: TokenMatcher; reset?: ResetDeps },
): void {
  const { swarm, matcher } = deps;
  const admin = (headers: Parameters<typeof requireRole>[0]): void => void requireRole(headers, matcher, 'admin');
  // The vocabulary never changes while the model is loaded: decoded once, on first request.
  let vocab: Promise<string[]> | null = null;

  app.get('/swarm/v1/config', async (req) => {
    admin(req.headers);
    return swarm.training;
  });

  app.patch('/swarm/v1/config', async (req) => {
    admin(req.headers);
    return swarm.updateTraining(parseBody(TrainingConfigPatchSchema, req.body));
  });

  app.post('/swarm/v1/control/pause', async (req) => {
    admin(req.headers);
    swarm.pause();
    return { state: swarm.state };
  });

  app.post('/swarm/v1/control/start', async (req) => {
    admin(req.headers);
    swarm.resume();
    return { state: swarm.state };
  });

  app.post('/swarm/v1/control/checkpoint', async (req) => {
    admin(req.headers);
    const info = await swarm.trainer.checkpoint('request');
    return { step: info.step, weightVersion: info.weightVersion, path: info.path };
  });

  // A fresh run without restarting the process (campaign trials on remote workers): run-reset.ts.
  app.post('/swarm/v1/control/reset', async (req) => {
    admin(req.headers);
    const body = parseBody(ResetRequestSchema, req.body, true);
    if (!deps.reset)
      throw conflict(
        'reset_unsupported',
        'this server cannot reset its run (it was built without an engine to reload)',
      );
    return resetRun(deps.reset, body);
  });

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

  app.post('/swarm/v1/logprobs', async (req) => {
    admin(req.headers);
    const { sequences } = parseBody(LogprobsRequestSchema, req.body);
    const { logprobs } = await swarm.engine.call('logprobs', { sequences });
    return { logprobs, weightVersion: swarm.weightVersion };
  });

  app.get('/swarm/v1/eval', async (req) => {
    admin(req.headers);
    return { eval: swarm.evalResults() };
  });
}
