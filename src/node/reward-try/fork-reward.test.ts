// The rewards of fork continuations: the calculator's real reward (bundled as the client runs it,
// in a child process) over a recorded call's prompt plus each continuation; an edited tool/user
// message; a reward that cannot load; a run without a reward file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toolResult, user } from '../../shared/chat';
import { SYS, conversation, say } from '../../shared/timeline/testing/scenes';
import { editedMessages, forkRewards } from './fork-reward';

const dir = mkdtempSync(join(tmpdir(), 'aj-fork-reward-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tasks = join(dir, 'tasks.jsonl');
writeFileSync(tasks, '{"id":"t47","answer":47}\n');
const [timeline] = conversation('e1', [{ reply: say('The sum.\n#### 46'), messages: [SYS, user('12+35?')] }]);
const common = {
  timeline: timeline!,
  taskId: 't47',
  taskFiles: [tasks],
  cacheDir: join(dir, 'cache'),
  nodePaths: [join(process.cwd(), 'node_modules')],
};

describe('forkRewards', () => {
  it('scores the recorded turn and each continuation with the run reward', async () => {
    const r = await forkRewards({
      ...common,
      file: resolve('resources/examples/calculator-agent/reward.ts'),
      continuations: [{ text: 'It is\n#### 47' }, { text: 'no idea' }, { text: '<tool_call>{"name": "calc"' }],
    });
    expect(r.note).toBeNull();
    expect(r.recorded).toEqual({ ok: true, reward: 0, success: false });
    expect(r.continuations).toEqual([
      { ok: true, reward: 1, success: true },
      { ok: true, reward: 0, success: false },
      { ok: true, reward: 0, success: false },
    ]);
  });

  it('says why there are no rewards: no reward file, a reward that does not compile, a missing task row', async () => {
    const none = await forkRewards({ ...common, file: null, continuations: [{ text: 'x' }] });
    expect(none).toMatchObject({ file: null, recorded: null, continuations: [] });
    expect(none.note).toMatch(/no reward file/);
    const broken = join(dir, 'broken.ts');
    writeFileSync(broken, 'export function reward( {\n');
    const bad = await forkRewards({ ...common, file: broken, continuations: [{ text: 'x' }] });
    expect(bad.continuations).toEqual([]);
    expect(bad.note).toMatch(/could not run/);
    const file = resolve('resources/examples/calculator-agent/reward.ts');
    const missing = await forkRewards({ ...common, file, taskId: 'nope', continuations: [{ text: '#### 1' }] });
    expect(missing.note).toMatch(/no task row for nope/);
    expect(missing.continuations).toHaveLength(1);
  });

  it('replaces the last tool or user message with the edit', () => {
    const msgs = [SYS, user('a'), say(null, ['calc', '{}']), toolResult('call_0_calc', '= 1')];
    expect(editedMessages(msgs, { content: '= 2' }).at(-1)).toMatchObject({ role: 'tool', content: '= 2' });
    expect(editedMessages(msgs.slice(0, 2), { content: 'b' }).at(-1)).toMatchObject({ role: 'user', content: 'b' });
    expect(editedMessages(msgs, undefined)).toEqual(msgs);
  });
});
