// The worker's start-up of its pool, engine and teacher. The teacher of on-policy distillation
// (--teacher-url, --teacher-token) is connected after the engine is up, and refused there unless its
// tokenizer is the student's.
import type { EngineCaller } from './engine/engine-caller';
import type { EngineHost } from './engine/engine-host';
import type { JournalFs } from './swarm/journal-fs';
import { DurablePool } from './swarm/pool';
import type { RunFiles } from './swarm/run-dir';
import { decodeVocabulary } from './server/routes-inspect';
import { checkSameTokenizer, RemoteTeacher, type Teacher } from './trainer/teacher';
import { PrefetchingTeacher } from './trainer/teacher-prefetch';
import type { WorkerConfig } from './worker-config';

/** The configured teacher, not contacted yet (null: none; throws on an incomplete setting). */
export function teacherOf(
  config: Pick<WorkerConfig, 'teacherUrl' | 'teacherToken'> & Partial<Pick<WorkerConfig, 'distillTopK'>>,
): RemoteTeacher | null {
  if (!config.teacherUrl) return null;
  if (!config.teacherToken) throw new Error('--teacher-url needs --teacher-token (the teacher worker’s admin token)');
  return new RemoteTeacher(config.teacherUrl, config.teacherToken, { topK: config.distillTopK ?? 0 });
}

/** Refuses the teacher unless it shares the started engine's tokenizer. */
export async function connectTeacher(
  teacher: RemoteTeacher,
  engine: EngineCaller & { readonly info: { vocabSize: number } | null },
  log: (line: string) => void,
): Promise<Teacher> {
  await checkSameTokenizer(teacher, () =>
    decodeVocabulary(engine.info?.vocabSize ?? 0, async (sequences) => {
      return (await engine.call('decode', { sequences, skipSpecialTokens: false })).texts;
    }),
  );
  const signal = teacher.topK > 0 ? `its top-${teacher.topK} at every trained token` : 'the sampled tokens';
  log(
    `on-policy distillation: teacher ${teacher.url} (same tokenizer; ${signal}; task groups scored as they complete)`,
  );
  return new PrefetchingTeacher(teacher);
}

/** Opens the pool, starts the engine and connects the teacher (a refused teacher stops both). */
export async function openPoolAndStart(
  engine: EngineHost,
  files: RunFiles,
  config: WorkerConfig,
  step: number,
  log: (line: string) => void,
  fs?: JournalFs,
): Promise<{ pool: DurablePool; teacher: Teacher | null }> {
  const configured = teacherOf(config);
  const pool = await DurablePool.open(files.pool, step, (m) => log(`[warn] pool: ${m}`), fs ? { fs } : {});
  try {
    await engine.start();
    if (!configured) return { pool, teacher: null };
    const teacher = await connectTeacher(configured, engine, log).catch(async (err: unknown) => {
      await engine.dispose();
      throw err;
    });
    return { pool, teacher };
  } catch (err) {
    await pool.dispose();
    throw err;
  }
}
