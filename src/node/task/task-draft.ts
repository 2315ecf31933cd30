// Vibe training (`agentjet task new DIR --describe "…"`, the workbench's "New task from
// description"): the LLM writes client.ts, reward.ts and the dataset from the template that knows
// the SDK; `task check` judges the folder; its failures go back to the LLM, up to N rounds, each
// round's diff kept. One local smoke worker serves every round's smoke episodes.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { diffFiles } from '../../shared/text-diff';
import {
  TaskDraftRequestSchema,
  type TaskDraftRequest,
  type TaskDraftResult,
  type TaskRound,
  type TaskVerdict,
} from '../../shared/task-draft';
import { WorkbenchError } from '../../shared/workbench-api';
import { LlmClient, type LlmMessage } from '../llm/llm-client';
import { checkTask, startSmokeWorker, TASK_FILES } from './task-check';
import type { TaskWorker } from './task-episodes';
import { describeRequest, feedback, systemPrompt, WRITE_FILES_TOOL, WriteFilesArgs } from './task-prompt';
import { ensureTaskTsconfig } from './task-tsconfig';

export interface DraftOptions {
  repoRoot: string;
  cacheDir: string;
  log: (line: string) => void;
  llm?: LlmClient;
  /** A worker for the smoke episodes (default: a local one started for the loop). */
  worker?: TaskWorker;
  onRound?: (r: TaskRound) => void;
}

function readFiles(dir: string): Record<string, string | null> {
  return Object.fromEntries(
    TASK_FILES.map((f) => [f, existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8') : null]),
  );
}

/** Creates the folder (refusing one that already holds a task) with its tsconfig.json and task.json. */
function prepareFolder(dir: string, description: string, repoRoot: string): void {
  if (existsSync(dir) && readdirSync(dir).some((f) => (TASK_FILES as readonly string[]).includes(f) || f === 'data')) {
    throw new WorkbenchError('folder_in_use', `${dir} already holds a task; choose an empty or new folder`);
  }
  mkdirSync(join(dir, 'data'), { recursive: true });
  ensureTaskTsconfig(repoRoot, dir);
  writeFileSync(
    join(dir, 'task.json'),
    `${JSON.stringify({ description, createdAt: new Date().toISOString() }, null, 2)}\n`,
  );
}

export async function draftTask(req: TaskDraftRequest, o: DraftOptions): Promise<TaskDraftResult> {
  const r = TaskDraftRequestSchema.parse(req);
  const dir = resolve(r.dir);
  prepareFolder(dir, r.description, o.repoRoot);
  const llm = o.llm ?? new LlmClient(r.llm);
  const messages: LlmMessage[] = [
    { role: 'system', content: systemPrompt(o.repoRoot) },
    { role: 'user', content: describeRequest(r.description) },
  ];
  const rounds: TaskRound[] = [];
  const local = r.smokeEpisodes > 0 && !o.worker ? await startSmokeWorker() : null;
  const worker = o.worker ?? local?.worker;
  let note: string | null = null;
  try {
    for (let round = 1; round <= r.rounds; round++) {
      const before = readFiles(dir);
      const { tokens, wrote, error } = await askForFiles(llm, messages, dir);
      if (error) {
        note = error;
        break;
      }
      const verdict: TaskVerdict = await checkTask(dir, {
        repoRoot: o.repoRoot,
        cacheDir: o.cacheDir,
        smokeEpisodes: r.smokeEpisodes,
        ...(worker ? { worker } : {}),
        log: (l) => o.log(`round ${round}: ${l}`),
      });
      const rec: TaskRound = { round, verdict, diff: diffFiles(before, readFiles(dir)), tokens };
      rounds.push(rec);
      o.onRound?.(rec);
      o.log(
        `round ${round}: wrote ${wrote.join(', ') || 'nothing'}; check ` +
          `${verdict.ok ? 'passed' : `failed (${verdict.failures.length} problem(s))`}`,
      );
      if (verdict.ok)
        return { ok: true, dir, rounds, files: TASK_FILES.filter((f) => existsSync(join(dir, f))), note: null };
      messages.push({ role: 'user', content: feedback(verdict) });
    }
    note ??= `the check still fails after ${r.rounds} round(s)`;
  } finally {
    await local?.dispose();
  }
  return { ok: false, dir, rounds, files: TASK_FILES.filter((f) => existsSync(join(dir, f))), note };
}

/** One exchange: the LLM writes files (tool calls; bad ones are answered with the reason and it may retry once). */
async function askForFiles(
  llm: LlmClient,
  messages: LlmMessage[],
  dir: string,
): Promise<{ tokens: number; wrote: string[]; error: string | null }> {
  let tokens = 0;
  const wrote: string[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    const reply = await llm.chat(messages, [WRITE_FILES_TOOL]);
    tokens += reply.tokens;
    messages.push(reply.message);
    if (reply.calls.length === 0) {
      if (wrote.length > 0) return { tokens, wrote, error: null };
      messages.push({ role: 'user', content: 'Write the files with the write_task_files tool.' });
      continue;
    }
    for (const call of reply.calls) {
      const parsed = call.parsed.ok ? WriteFilesArgs.safeParse(call.parsed.value) : null;
      if (!parsed?.success) {
        messages.push({
          role: 'tool',
          tool_call_id: call.id,
          content: JSON.stringify({ error: call.parsed.ok ? 'invalid arguments' : call.parsed.error }),
        });
        continue;
      }
      for (const f of parsed.data.files) {
        const path = join(dir, f.path);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, f.content.endsWith('\n') ? f.content : `${f.content}\n`);
        wrote.push(f.path);
      }
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: JSON.stringify({ written: parsed.data.files.map((f) => f.path) }),
      });
    }
    if (wrote.length > 0) return { tokens, wrote, error: null };
  }
  return { tokens, wrote, error: 'the LLM wrote no files' };
}
