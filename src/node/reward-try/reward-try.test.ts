// reward try end to end below the UI: a real store with recorded episodes, the calculator's real
// reward (bundled as the client runs it, in a child process) and an edited wrong rule.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { user } from '../../shared/chat';
import { SYS, conversation, say } from '../../shared/timeline/testing/scenes';
import { episodeInput, newRun, tempStore } from '../store/test-support';
import { tryReward } from './reward-try';

const dir = mkdtempSync(join(tmpdir(), 'aj-reward-try-e2e-'));
const temp = tempStore();
afterAll(() => {
  temp.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function record(episodeId: string, taskId: string, answer: string, reward: number, createdAt: number): void {
  temp.store.putEpisode('r', episodeInput(episodeId, { taskId, reward, success: reward > 0, calls: 1, createdAt }));
  const calls = conversation(episodeId, [{ reply: say(`The sum.\n#### ${answer}`), messages: [SYS, user('q?')] }]);
  temp.store.putEpisodeTimelines('r', episodeId, calls, null);
}

describe('tryReward', () => {
  temp.store.createRun(newRun('r'));
  record('e1', 't47', '47', 1, 1);
  record('e2', 't47', '46', 0, 2);
  record('e3', 't5', '5', 1, 3);
  record('e4', 't5', '5', 1, 4);
  const tasks = join(dir, 'tasks.jsonl');
  writeFileSync(tasks, ['{"id":"t47","answer":47}', '{"id":"t5","answer":5}', 'not json'].join('\n'));
  const common = {
    store: temp.store,
    runId: 'r',
    taskFiles: [tasks],
    cacheDir: join(dir, 'cache'),
    nodePaths: [join(process.cwd(), 'node_modules')],
  };

  it('finds no change with the reward the episodes were scored with', async () => {
    const v = await tryReward({ ...common, file: resolve('resources/examples/calculator-agent/reward.ts') });
    expect(v).toMatchObject({ ok: true, episodes: 4, scored: 4, changed: [], missingTasks: 0 });
    expect(v.old.mean).toBeCloseTo(0.75);
  });

  it('lists the episodes a wrong rule changes and the groups that lose signal', async () => {
    const file = join(dir, 'wrong.ts');
    writeFileSync(
      file,
      'export function reward(): { reward: number; success: boolean } {\n  return { reward: 1, success: true };\n}\n',
    );
    const v = await tryReward({ ...common, file });
    expect(v.changed.map((c) => [c.episodeId, c.oldReward, c.newReward])).toEqual([['e2', 0, 1]]);
    expect(v.groups).toMatchObject({ scope: 'tried', loseSignal: ['t47'], gainSignal: [] });
    expect(v.new.mean).toBe(1);
  });

  it('filters by task and code version and takes the newest N', async () => {
    const file = resolve('resources/examples/calculator-agent/reward.ts');
    expect((await tryReward({ ...common, file, task: 't5' })).episodes).toBe(2);
    expect((await tryReward({ ...common, file, codeVersion: 'nope' })).episodes).toBe(0);
    expect((await tryReward({ ...common, file, last: 1 })).changed).toEqual([]);
  });
});
