// Runs the engine's reward-model process (`python -m agentjet_engine.reward_model`, a process of its own,
// never the policy engine's): `train` with progress events parsed line by line (zod), and `score` (token ids
// and PyTorch + ONNX scores of conversations, for parity checks). A failure is one Error naming the
// process's own error event, or its exit status and last stderr lines.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { ENGINE_DIR, findPython } from '../../../gpu-worker/src/engine/find-python';
import { WireErrorSchema } from '../../shared/result';
import { RewardModelManifestSchema, type Conversation, type RewardModelManifest } from '../../shared/reward-model';

export const RM_LOSSES = ['pairwise', 'pointwise', 'both'] as const;
export type RmLoss = (typeof RM_LOSSES)[number];

/** Training settings (the engine's defaults apply to what is left out). */
export interface RmTrainSettings {
  loss?: RmLoss;
  epochs?: number;
  lr?: number;
  batch?: number;
  heldout?: number;
  maxLength?: number;
  seed?: number;
  threads?: number;
  device?: 'auto' | 'cpu' | 'cuda';
  maxMinutes?: number;
  /** torch.onnx exporter (default torchscript: seconds; dynamo: the torch.export-based one). */
  exporter?: 'torchscript' | 'dynamo';
}

export interface RmTrainSpec extends RmTrainSettings {
  dataset: string;
  /** A Hugging Face model folder (the policy's, by default). */
  base: string;
  /** The reward-model folder to create. */
  out: string;
  version: number;
  python?: string;
}

export const RmTrainEventSchema = z.discriminatedUnion('event', [
  z.object({
    event: z.literal('start'),
    steps: z.number(),
    trainPairs: z.number(),
    heldoutPairs: z.number(),
    trainPoints: z.number(),
    heldoutPoints: z.number(),
    conversations: z.number(),
    device: z.string(),
  }),
  z.object({ event: z.literal('probe'), loss: z.number(), seconds: z.number(), conversations: z.number() }),
  z.object({ event: z.literal('step'), step: z.number(), steps: z.number(), loss: z.number(), seconds: z.number() }),
  z.object({ event: z.literal('stopped'), reason: z.string(), step: z.number() }),
  z.object({ event: z.literal('exported'), onnxMaxAbsDiff: z.number(), exportSeconds: z.number() }),
  z.object({
    event: z.literal('done'),
    folder: z.string(),
    sha256: z.string(),
    seconds: z.number(),
    manifest: RewardModelManifestSchema,
  }),
  z.object({ event: z.literal('error'), error: WireErrorSchema }),
]);
export type RmTrainEvent = z.infer<typeof RmTrainEventSchema>;

export interface RmTrained {
  folder: string;
  sha256: string;
  manifest: RewardModelManifest;
  /** Wall-clock seconds of the whole process (start-up, training, export). */
  seconds: number;
}

const FLAGS: Record<keyof RmTrainSettings, string> = {
  loss: '--loss',
  epochs: '--epochs',
  lr: '--lr',
  batch: '--batch',
  heldout: '--heldout',
  maxLength: '--max-length',
  seed: '--seed',
  threads: '--threads',
  device: '--device',
  maxMinutes: '--max-minutes',
  exporter: '--exporter',
};

export function trainArgs(spec: RmTrainSpec): string[] {
  const args = [
    '-u',
    '-m',
    'agentjet_engine.reward_model',
    'train',
    '--data',
    spec.dataset,
    '--base',
    spec.base,
    '--out',
    spec.out,
    '--version',
    String(spec.version),
  ];
  for (const [key, flag] of Object.entries(FLAGS) as [keyof RmTrainSettings, string][]) {
    const v = spec[key];
    if (v !== undefined) args.push(flag, String(v));
  }
  return args;
}

export interface RunningProcess<T> {
  done: Promise<T>;
  /** Stops the process (SIGTERM, then SIGKILL after 5 s); `done` rejects. */
  cancel(): void;
}

function runEngineModule(
  args: string[],
  python: string | undefined,
  onLine: (line: string) => void,
): RunningProcess<{ code: number | null; stderrTail: string }> {
  const child = spawn(findPython(python), args, {
    cwd: ENGINE_DIR,
    env: { ...process.env, PYTHONUNBUFFERED: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail: string[] = [];
  createInterface({ input: child.stdout }).on('line', onLine);
  createInterface({ input: child.stderr }).on('line', (l) => {
    tail.push(l);
    if (tail.length > 40) tail.shift();
  });
  let killTimer: NodeJS.Timeout | null = null;
  const done = new Promise<{ code: number | null; stderrTail: string }>((resolve, reject) => {
    child.once('error', (err) => reject(new Error(`could not start the reward-model process: ${err.message}`)));
    child.once('close', (code, signal) => {
      if (killTimer) clearTimeout(killTimer);
      if (signal) reject(new Error(`the reward-model process was stopped (${signal})`));
      else resolve({ code, stderrTail: tail.join('\n') });
    });
  });
  return {
    done,
    cancel: () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      killTimer = setTimeout(() => child.kill('SIGKILL'), 5000);
      killTimer.unref();
    },
  };
}

/** Trains and exports a reward model; `onEvent` sees every progress event. */
export function trainRewardModel(
  spec: RmTrainSpec,
  onEvent: (e: RmTrainEvent) => void = () => undefined,
): RunningProcess<RmTrained> {
  const t0 = performance.now();
  let done: Extract<RmTrainEvent, { event: 'done' }> | null = null;
  let failed: Extract<RmTrainEvent, { event: 'error' }> | null = null;
  const bad: string[] = [];
  const proc = runEngineModule(trainArgs(spec), spec.python, (line) => {
    if (!line.trim()) return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      bad.push(line);
      return;
    }
    const parsed = RmTrainEventSchema.safeParse(raw);
    if (!parsed.success) {
      bad.push(line.slice(0, 300));
      return;
    }
    const e = parsed.data;
    if (e.event === 'done') done = e;
    if (e.event === 'error') failed = e;
    onEvent(e);
  });
  return {
    cancel: proc.cancel,
    done: proc.done.then(({ code, stderrTail }) => {
      const f: Extract<RmTrainEvent, { event: 'error' }> | null = failed;
      if (f) throw new Error(`reward-model training failed: ${f.error.message}`);
      const d: Extract<RmTrainEvent, { event: 'done' }> | null = done;
      if (code !== 0 || !d) {
        throw new Error(
          `reward-model training exited with status ${code}${bad.length ? `; unreadable output: ${bad.slice(-2).join(' | ')}` : ''}${stderrTail ? `\n${stderrTail.split('\n').slice(-8).join('\n')}` : ''}`,
        );
      }
      return { folder: d.folder, sha256: d.sha256, manifest: d.manifest, seconds: (performance.now() - t0) / 1000 };
    }),
  };
}

export const PythonScoreSchema = z.object({
  id: z.string(),
  tokenIds: z.array(z.number().int()),
  torch: z.number(),
  onnx: z.number(),
});
export type PythonScore = z.infer<typeof PythonScoreSchema>;

/** Token ids and PyTorch + ONNX scores of conversations, computed by the engine's Python side. */
export async function scoreWithPython(
  folder: string,
  conversations: readonly (Conversation & { id: string })[],
  scratchFile: string,
  python?: string,
): Promise<PythonScore[]> {
  await writeFile(
    scratchFile,
    conversations.map((c) => JSON.stringify({ id: c.id, messages: c.messages, tools: c.tools ?? null })).join('\n') +
      '\n',
  );
  const rows: PythonScore[] = [];
  let error: string | null = null;
  const proc = runEngineModule(
    ['-u', '-m', 'agentjet_engine.reward_model', 'score', '--model', folder, '--data', scratchFile],
    python,
    (line) => {
      if (!line.trim()) return;
      const raw: unknown = JSON.parse(line);
      const row = PythonScoreSchema.safeParse(raw);
      if (row.success) rows.push(row.data);
      else error = line.slice(0, 500);
    },
  );
  const { code, stderrTail } = await proc.done;
  if (code !== 0 || error !== null)
    throw new Error(
      `reward-model scoring failed (status ${code}): ${error ?? stderrTail.split('\n').slice(-5).join('\n')}`,
    );
  return rows;
}
