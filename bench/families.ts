// Benchmark `families`: how well the episodes of each model family merge under its chat template.
// A tiny random-weights model of each family with its real tokenizer (gpu-worker/src/testing/
// family-models.ts) is served by a real worker whose engine forces the family's replies; one
// chat-completions tool episode of `--turns` user turns (each: a tool call with reasoning where the
// family has it, the tool result, an answer) is played with the openai SDK, sending back what it
// returned. Qwen3 runs twice: its own template (which drops the reasoning of turns before the last
// user message) and `--keep-reasoning`; Gemma 3 (no tools of its own) runs with the shipped Hermes tools
// template and --tool-parser hermes. Per arm: calls, merged samples, calls per sample, the token
// ratio (tokens before / after merging) and the chain breaks by cause. The weights are noise; the
// merge figures depend only on the template and the token sequences, which are the real ones.
import OpenAI from 'openai';
import { rmSync } from 'node:fs';
import { claimEpisode } from '../gpu-worker/src/testing/api-episodes';
import { chatEpisode, chatReplies, end } from '../gpu-worker/src/testing/family-episodes';
import {
  buildFamilyModels,
  FAMILIES,
  serveFamily,
  type BuiltFamilyModel,
  type FamilyName,
} from '../gpu-worker/src/testing/family-models';
import { http, tempDir, TEST_TOKENS } from '../gpu-worker/src/testing/workers';
import { MergedEpisodeAnswerSchema } from '../src/shared/swarm-protocol';
import { argValue, round } from './engine';

const ALL: FamilyName[] = ['qwen3', 'llama3', 'gptoss', 'deepseek_v3', 'gemma3'];

interface Arm {
  family: FamilyName;
  template: 'default' | 'keep-reasoning';
  calls: number;
  samples: number;
  callsPerSample: number;
  tokenRatio: number;
  breaks: Record<string, number>;
  seconds: number;
}

async function playArm(model: BuiltFamilyModel, turns: number, keepReasoning: boolean): Promise<Arm> {
  const t0 = Date.now();
  const t = await serveFamily(model, { keepReasoning });
  try {
    const c = await claimEpisode(t, 'bench-families', 'eval');
    await chatEpisode(c, new OpenAI({ baseURL: c.baseUrl, apiKey: c.apiKey, maxRetries: 0 }), turns);
    await end(t, c.episodeId, 1);
    const res = await http(t.worker.url, 'GET', `/swarm/v1/episodes/${c.episodeId}/merged`, {
      token: TEST_TOKENS.admin,
    });
    const merged = MergedEpisodeAnswerSchema.parse(res.body);
    const breaks = Object.fromEntries(Object.entries(merged.stats.breakCounts).filter(([, n]) => n > 0));
    return {
      family: model.family.name,
      template: keepReasoning ? 'keep-reasoning' : 'default',
      calls: merged.stats.callsIn,
      samples: merged.samples.length,
      callsPerSample: round(merged.stats.callsIn / Math.max(1, merged.samples.length), 2),
      tokenRatio: round(merged.stats.compressionRatio, 2),
      breaks,
      seconds: round((Date.now() - t0) / 1000, 1),
    };
  } finally {
    await t.stop();
  }
}

export async function benchFamilies(args: string[]): Promise<Record<string, unknown>> {
  const turns = Number(argValue(args, '--turns') ?? 10);
  const names = (argValue(args, '--families') ?? ALL.join(',')).split(',');
  const unknown = names.filter((n) => !ALL.some((f) => f === n));
  if (unknown.length > 0 || !Number.isInteger(turns) || turns < 1) {
    throw new Error(`--families takes ${ALL.join(',')} (got ${unknown.join(',')}); --turns a positive integer`);
  }
  const families = ALL.filter((f) => names.includes(f));
  const dir = tempDir('aj-bench-families-');
  try {
    const models = buildFamilyModels(
      dir,
      families.map((name) => ({ family: FAMILIES[name], replies: chatReplies(FAMILIES[name], turns) })),
    );
    const arms: Arm[] = [];
    for (const model of models) {
      arms.push(await playArm(model, turns, false));
      console.log(JSON.stringify(arms.at(-1)));
      if (model.family.name === 'qwen3') {
        arms.push(await playArm(model, turns, true));
        console.log(JSON.stringify(arms.at(-1)));
      }
    }
    return { bench: 'families', turns, arms };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
