// A fake engine *program* for tests of the worker's engine client over real stdio frames (run as
// `node --import tsx fake-engine-program.ts`; `fakeEnginePython` makes a launcher that EngineProcess
// starts in place of the Python interpreter). It answers info/load/restore/configure/render (load
// echoes the path, threads and device it was given), never answers `generate` until it is cancelled, and for a render of the message "lose-this-frame" it
// answers what the Python engine used to answer a frame it could not parse: an error without the
// request id (issue #19 §1). Every cancel it receives is logged on stderr.
import { chmodSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { encodeFrame, FrameDecoder } from '../engine/frames';

/** A model path containing this fails to load. */
export const UNLOADABLE = 'unloadable';

/** The message content that makes the fake answer with an id-less error. */
export const LOSE_THIS_FRAME = 'lose-this-frame';

/** Writes an executable launcher for this program into `dir`; pass it as EngineProcess's `python`. */
export function fakeEnginePython(dir: string): string {
  const path = join(dir, 'fake-engine-python');
  const program = resolve(dirname(fileURLToPath(import.meta.url)), 'fake-engine-program.ts');
  writeFileSync(path, `#!/bin/sh\nexec "${process.execPath}" --import tsx "${program}"\n`);
  chmodSync(path, 0o755);
  return path;
}

const RequestSchema = z.object({ id: z.number().int(), method: z.string(), params: z.record(z.string(), z.unknown()) });
const RenderSchema = z.object({ messages: z.array(z.object({ content: z.string().nullable().optional() })) });
const CancelSchema = z.object({ requestId: z.number().int() });
const LoadEchoSchema = z
  .object({ path: z.string().optional(), threads: z.number().int().optional(), device: z.string().optional() })
  .transform((p) => ({
    ...(p.path !== undefined ? { model: p.path } : {}),
    ...(p.threads !== undefined ? { threads: p.threads } : {}),
    ...(p.device !== undefined ? { device: p.device } : {}),
  }));

const info = {
  loaded: true,
  model: '/fake/program',
  device: 'cpu',
  dtype: 'float32',
  params: 1,
  trainableParams: 1,
  vocabSize: 100,
  contextLength: 1024,
  weightVersion: 0,
  lora: false,
  threads: 1,
  torch: 'fake',
  transformers: 'fake',
  eosTokenIds: [2],
  padTokenId: 0,
};

const send = (frame: unknown): void => void process.stdout.write(encodeFrame(frame));
const generating = new Set<number>();

function answer(id: number, method: string, params: Record<string, unknown>): void {
  switch (method) {
    case 'info':
    case 'restore':
      return send({ id, result: info });
    case 'load': {
      // What it was asked to load, as the real engine reports it; a folder named *unloadable* fails.
      const loaded = LoadEchoSchema.parse(params);
      if (loaded.model?.includes(UNLOADABLE))
        return send({ id, error: { type: 'invalid_request', code: 'bad_model', message: 'cannot load [fake]' } });
      return send({ id, result: { ...info, ...loaded } });
    }
    case 'configure':
      return send({ id, result: { mode: 'continuous' } });
    case 'render': {
      const { messages } = RenderSchema.parse(params);
      if (messages.some((m) => m.content === LOSE_THIS_FRAME))
        return send({
          id: null,
          error: { type: 'protocol', code: 'bad_json', message: 'frame is not valid JSON: recursion [fake]' },
        });
      return send({ id, result: { tokenIds: [5, 6, 7], spans: [], text: 'fake' } });
    }
    case 'generate':
      generating.add(id); // never answered, unless cancelled
      return;
    case 'cancel': {
      const { requestId } = CancelSchema.parse(params);
      process.stderr.write(`fake engine: cancel ${requestId}\n`);
      const found = generating.delete(requestId);
      if (found) send({ id: requestId, error: { type: 'cancelled', code: 'cancelled', message: 'cancelled [fake]' } });
      return send({ id, result: { cancelled: found } });
    }
    default:
      return send({ id, error: { type: 'unknown_method', code: 'unknown_method', message: `no ${method} [fake]` } });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const decoder = new FrameDecoder((msg) => process.stderr.write(`fake engine: ${msg}\n`));
  process.stdin.on('data', (chunk: Buffer) => {
    for (const frame of decoder.push(chunk)) {
      const req = RequestSchema.parse(frame);
      answer(req.id, req.method, req.params);
    }
  });
  process.stdin.on('end', () => process.exit(0));
}
