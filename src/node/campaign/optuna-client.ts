// The campaign runner's side of the optimiser process (`python -m agentjet_campaign`, Optuna in the
// engine's virtualenv): one JSON line per request and per answer, answered in order; every answer
// parsed with a schema. The process dying rejects every pending call with one clear error.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { ENGINE_DIR, findPython } from '../../../gpu-worker/src/engine/find-python';
import type { OptunaDistribution, Params, Scalar } from '../../shared/campaign/space';
import { PendingCalls } from '../../shared/pending-calls';
import { WireErrorSchema } from '../../shared/result';

const ScalarSchema = z.union([z.string(), z.number(), z.boolean()]);
const AttrsSchema = z.record(z.string(), z.unknown());

export const OptunaTrialSchema = z.object({
  number: z.number().int(),
  state: z.enum(['running', 'complete', 'pruned', 'fail', 'waiting']),
  params: z.record(z.string(), ScalarSchema),
  value: z.number().nullable(),
  intermediate: z.array(z.tuple([z.number().int(), z.number()])),
  attrs: AttrsSchema,
  start: z.number().nullable(),
  complete: z.number().nullable(),
});
export type OptunaTrial = z.infer<typeof OptunaTrialSchema>;

const results = {
  ping: z.object({ optuna: z.string() }),
  open: z.object({ trials: z.number().int(), optuna: z.string() }),
  ask: z.object({ number: z.number().int(), params: z.record(z.string(), ScalarSchema), attrs: AttrsSchema }),
  report: z.object({ prune: z.boolean() }),
  tell: z.object({ number: z.number().int() }),
  enqueue: z.object({ waiting: z.number().int() }),
  trials: z.object({ trials: z.array(OptunaTrialSchema) }),
  recover: z.object({
    rerun: z.array(z.object({ number: z.number().int(), params: z.record(z.string(), ScalarSchema) })),
  }),
  importance: z.object({ importance: z.record(z.string(), z.number()).nullable(), reason: z.string().nullable() }),
} as const;
type Method = keyof typeof results;

const AnswerSchema = z.object({
  id: z.number().int().nullable().optional(),
  result: z.unknown().optional(),
  error: WireErrorSchema.optional(),
});

export class OptunaError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'OptunaError';
  }
}

export interface StudyOptions {
  storage: string;
  studyName: string;
  direction: 'maximize' | 'minimize';
  space: Record<string, OptunaDistribution>;
  grid?: Record<string, Scalar[]>;
  sampler: { type: 'tpe' | 'random' | 'grid'; seed: number; startupTrials?: number };
  pruner: {
    type: 'none' | 'median' | 'successive_halving' | 'hyperband';
    minResource: number;
    maxResource?: number;
    reductionFactor: number;
  };
}

export class OptunaClient {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new PendingCalls<Method>();
  private dead: Error | null = null;
  private readonly stderr: string[] = [];
  private readonly exited: Promise<void>;

  private constructor(python: string) {
    this.child = spawn(python, ['-u', '-m', 'agentjet_campaign'], {
      cwd: ENGINE_DIR,
      env: { ...process.env, PYTHONUNBUFFERED: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    createInterface({ input: this.child.stdout }).on('line', (line) => this.onLine(line));
    createInterface({ input: this.child.stderr }).on('line', (line) => {
      this.stderr.push(line);
      if (this.stderr.length > 20) this.stderr.shift();
    });
    this.child.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      this.child.once('error', (err) => {
        this.fail(`the optimiser process could not start: ${err.message}`);
        resolve();
      });
      this.child.once('exit', (code, signal) => {
        this.fail(
          `the optimiser process exited (${signal ?? `code ${code}`})${this.stderr.length ? `:\n${this.stderr.slice(-5).join('\n')}` : ''}`,
        );
        resolve();
      });
    });
  }

  /** Starts the process with the engine's interpreter and checks that Optuna imports. */
  static async start(python?: string): Promise<OptunaClient> {
    const client = new OptunaClient(findPython(python));
    try {
      await client.call('ping', {});
    } catch (err) {
      await client.dispose();
      throw err;
    }
    return client;
  }

  open(o: StudyOptions): Promise<z.infer<(typeof results)['open']>> {
    return this.call('open', { ...o });
  }

  /** The next trial: an enqueued configuration first (re-runs, other seeds, the agent's), else the sampler's. */
  ask(
    defaultAttrs: Record<string, unknown> = {},
  ): Promise<{ number: number; params: Params; attrs: Record<string, unknown> }> {
    return this.call('ask', { defaultAttrs });
  }

  async report(number: number, step: number, value: number): Promise<boolean> {
    return (await this.call('report', { number, step, value })).prune;
  }

  async tell(
    number: number,
    state: 'complete' | 'pruned' | 'fail',
    value: number | null,
    attrs: Record<string, unknown> = {},
  ): Promise<void> {
    await this.call('tell', { number, state, ...(value !== null ? { value } : {}), attrs });
  }

  async enqueue(params: Params, attrs: Record<string, unknown>): Promise<void> {
    await this.call('enqueue', { params, attrs });
  }

  async trials(): Promise<OptunaTrial[]> {
    return (await this.call('trials', {})).trials;
  }

  async recover(): Promise<{ number: number; params: Params }[]> {
    return (await this.call('recover', {})).rerun;
  }

  importance(): Promise<{ importance: Record<string, number> | null; reason: string | null }> {
    return this.call('importance', {});
  }

  async dispose(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.stdin.end();
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
      await this.exited;
      clearTimeout(timer);
    }
  }

  private call<M extends Method>(method: M, params: Record<string, unknown>): Promise<z.infer<(typeof results)[M]>> {
    if (this.dead) return Promise.reject(this.dead);
    const { id, promise } = this.pending.add(method);
    this.child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    return promise.then((raw) => {
      const parsed = results[method].safeParse(raw);
      if (!parsed.success)
        throw new OptunaError(
          'bad_result',
          `optimiser ${method}: unexpected answer (${parsed.error.issues[0]?.message ?? ''})`,
        );
      return parsed.data as z.infer<(typeof results)[M]>;
    });
  }

  private onLine(line: string): void {
    let answer: z.infer<typeof AnswerSchema>;
    try {
      answer = AnswerSchema.parse(JSON.parse(line));
    } catch {
      this.stderr.push(`unparseable answer: ${line.slice(0, 200)}`);
      return;
    }
    // Answers come in request order; one without an id answers the oldest pending request.
    const id = answer.id ?? this.pending.ids()[0];
    if (id === undefined) return;
    if (answer.error) this.pending.reject(id, new OptunaError(answer.error.code, answer.error.message));
    else this.pending.resolve(id, answer.result);
  }

  private fail(message: string): void {
    this.dead ??= new OptunaError('optimiser_exited', message);
    this.pending.dispose(this.dead);
  }
}
