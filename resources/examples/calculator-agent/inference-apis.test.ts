// The three inference APIs against a real worker (the engine and built-in model) with the official
// SDKs unchanged: the same calculator-agent episode (greedy, so deterministic) is played through
// chat completions (`openai`), the Responses API (`openai` responses.create, and responses.stream)
// and the Messages API (`@anthropic-ai/sdk` messages.create, and messages.stream). Each is a
// multi-turn tool-using episode; each is recorded with the very tokens of the chat-completions one
// and merges into as many samples per call.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, startWorkerProcess, TOKENS, type WorkerProcess } from '../../../src/sdk/testing/worker-process';
import { runEpisode, type Policy } from '../../../src/shared/episode';
import { ClaimResponseSchema, type ClaimResponse } from '../../../src/shared/swarm-protocol';
import { TimelineSchema, type Timeline } from '../../../src/shared/timeline/index';
import { z } from 'zod';
import { loadTasks, type CalcTask } from '../index';
import { messagesPolicy } from '../messages-policy';
import { openaiPolicy } from '../openai-policy';
import { responsesPolicy } from '../responses-policy';
import { calculatorEnv } from './env';

const MAX_TOKENS = 64;

const variants: Record<string, (c: ClaimResponse) => Policy> = {
  chat: (c) =>
    openaiPolicy(new OpenAI({ baseURL: c.baseUrl, apiKey: c.apiKey, maxRetries: 0 }), {
      model: c.model,
      maxTokens: MAX_TOKENS,
      temperature: 0,
    }),
  responses: (c) =>
    responsesPolicy(new OpenAI({ baseURL: c.baseUrl, apiKey: c.apiKey, maxRetries: 0 }), {
      model: c.model,
      maxTokens: MAX_TOKENS,
      temperature: 0,
    }),
  'responses-stream': (c) =>
    responsesPolicy(new OpenAI({ baseURL: c.baseUrl, apiKey: c.apiKey, maxRetries: 0 }), {
      model: c.model,
      maxTokens: MAX_TOKENS,
      temperature: 0,
      stream: true,
    }),
  messages: (c) =>
    messagesPolicy(new Anthropic({ baseURL: c.baseUrl.replace(/\/v1$/, ''), apiKey: c.apiKey, maxRetries: 0 }), {
      model: c.model,
      maxTokens: MAX_TOKENS,
      temperature: 0,
    }),
  'messages-stream': (c) =>
    messagesPolicy(new Anthropic({ baseURL: c.baseUrl.replace(/\/v1$/, ''), apiKey: c.apiKey, maxRetries: 0 }), {
      model: c.model,
      maxTokens: MAX_TOKENS,
      temperature: 0,
      stream: true,
    }),
};

const EpisodeDetail = z.object({ timelines: z.array(TimelineSchema) });
const Merged = z.object({ samples: z.array(z.unknown()), stats: z.object({ breaks: z.array(z.unknown()) }) });

let w: WorkerProcess;
beforeAll(async () => {
  w = await startWorkerProcess(['--strategy', 'C1', '--batch', '1000', '--max-tokens', String(MAX_TOKENS)]);
});
afterAll(async () => {
  await w?.stop();
});

async function play(
  variant: string,
  task: CalcTask,
): Promise<{ timelines: Timeline[]; samples: number; breaks: number }> {
  const res = await fetch(`${w.url}/swarm/v1/episodes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKENS.join}`, 'content-type': 'application/json' },
    body: JSON.stringify({ clientId: `apis-${variant}`, kind: 'eval', taskId: task.id }),
  });
  const c = ClaimResponseSchema.parse(await res.json());
  const result = await runEpisode(calculatorEnv, task, variants[variant]!(c));
  await fetch(`${w.url}/swarm/v1/episodes/${c.episodeId}/end`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKENS.join}`, 'content-type': 'application/json' },
    body: JSON.stringify({ taskId: task.id, reward: result.reward }),
  });
  const { timelines } = EpisodeDetail.parse(await admin(w.url, 'GET', `/swarm/v1/episodes/${c.episodeId}`));
  const merged = Merged.parse(await admin(w.url, 'GET', `/swarm/v1/episodes/${c.episodeId}/merged`));
  return { timelines, samples: merged.samples.length, breaks: merged.stats.breaks.length };
}

describe('chat completions, Responses and Messages APIs with the official SDKs against a real worker', () => {
  it('record the same multi-turn tool-using episode with the same tokens, merging alike', async () => {
    // The first eval task on which the greedy model calls the tool and then goes on.
    let task: CalcTask | undefined;
    let reference: Awaited<ReturnType<typeof play>> | undefined;
    for (const candidate of loadTasks('calculator-agent', 'eval').slice(0, 12)) {
      const played = await play('chat', candidate);
      if (played.timelines.length >= 2 && (played.timelines[0]!.output.tool_calls?.length ?? 0) > 0) {
        task = candidate;
        reference = played;
        break;
      }
    }
    expect(task, 'no eval task among the first 12 made the greedy model call the tool').toBeDefined();
    for (const variant of Object.keys(variants).filter((v) => v !== 'chat')) {
      const got = await play(variant, task!);
      expect(
        got.timelines.map((t) => t.promptIds),
        variant,
      ).toEqual(reference!.timelines.map((t) => t.promptIds));
      expect(
        got.timelines.map((t) => t.outputIds),
        variant,
      ).toEqual(reference!.timelines.map((t) => t.outputIds));
      expect(got.samples / got.timelines.length, variant).toBe(reference!.samples / reference!.timelines.length);
      expect(got.breaks, variant).toBe(reference!.breaks);
    }
    expect(reference!.samples).toBe(1);
  }, 180_000);
});
