import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { conversation, say } from '../../shared/timeline/testing/scenes';
import { MIGRATIONS, SCHEMA_VERSION, migrate } from './migrations';
import { timelinesToRecords } from './records';
import { openStore } from './store';
import { episodeInput, newRun, tempStore, type TempStore } from './test-support';

describe('migrations', () => {
  let temp: TempStore | null = null;
  afterEach(() => {
    temp?.cleanup();
    temp = null;
  });

  it('numbers migrations 1..n and records the version', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    const db = new Database(':memory:');
    expect(migrate(db)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(migrate(db)).toEqual([]);
    db.close();
  });

  it('migrates a database written at an older version, keeping its data', () => {
    temp = tempStore();
    temp.store.close();
    const path = temp.path;
    // Rebuild the file as a version-1 database with a run in it.
    const old = new Database(`${path}.v1`);
    migrate(old, MIGRATIONS.slice(0, 1));
    old
      .prepare(
        "INSERT INTO runs (run_id, name, mode, worker_url, model, example, config, created_at) VALUES ('r1', 'old run', 'local', 'u', 'm', NULL, '{}', 5)",
      )
      .run();
    old.close();

    const store = openStore(`${path}.v1`);
    try {
      expect(store.getRun('r1')).toMatchObject({ runId: 'r1', name: 'old run', createdAt: 5 });
      // Version 2's tables work on the migrated file.
      expect(store.hasVocab('r1')).toBe(false);
      store.putVocab('r1', ['a', 'b']);
      store.appendLog('r1', { t: 1, source: { kind: 'worker' }, stream: 'stdout', line: 'hello' });
      expect(store.hasVocab('r1')).toBe(true);
      expect(store.recentLogs('r1', { kind: 'worker' }, 10).map((l) => l.line)).toEqual(['hello']);
    } finally {
      store.close();
    }
    const check = new Database(`${path}.v1`);
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    check.close();
  });

  it('reads episodes stored before roles (version 7) with no role, and stores a role after migrating', () => {
    temp = tempStore();
    temp.store.close();
    const path = `${temp.path}.v7`;
    const old = new Database(path);
    migrate(old, MIGRATIONS.slice(0, 7));
    old
      .prepare(
        "INSERT INTO runs (run_id, name, mode, worker_url, model, example, config, created_at) VALUES ('r1', 'old run', 'local', 'u', 'm', NULL, '{}', 5)",
      )
      .run();
    old
      .prepare(
        "INSERT INTO episodes (run, episode_id, kind, status, client_id, calls, created_at) VALUES (1, 'e0', 'train', 'ended', 'c', 1, 6)",
      )
      .run();
    old.close();

    const store = openStore(path);
    try {
      expect(store.getEpisode('r1', 'e0')).toMatchObject({ episodeId: 'e0', role: null });
      store.putEpisode('r1', episodeInput('e1', { role: 'proposer' }));
      expect(store.episodesPage('r1', { role: 'proposer' }, 0, 10, 'newest').rows.map((r) => r.episodeId)).toEqual([
        'e1',
      ]);
    } finally {
      store.close();
    }
  });

  it('reads timelines stored before prefix sharing (version 2) after migrating', () => {
    temp = tempStore();
    temp.store.close();
    const old = new Database(`${temp.path}.v2`);
    migrate(old, MIGRATIONS.slice(0, 2));
    old
      .prepare(
        "INSERT INTO runs (id, run_id, name, mode, worker_url, model, example, config, created_at) VALUES (1, 'r1', 'old', 'local', 'u', 'm', NULL, '{}', 5)",
      )
      .run();
    old
      .prepare(
        "INSERT INTO episodes (id, run, episode_id, kind, status, client_id, calls, created_at, has_timelines) VALUES (1, 1, 'e', 'train', 'ended', 'c1', 2, 5, 1)",
      )
      .run();
    const calls = conversation('e', [{ reply: say('one') }, { reply: say('two') }]);
    calls.forEach((t, seq) => {
      // Version 2 stored every prompt in full: one row per call, each encoded on its own.
      const {
        prompt_base: _b,
        prompt_shared: _p,
        messages_shared: _m,
        spans_shared: _s,
        ...row
      } = timelinesToRecords([t])[0]!;
      old
        .prepare(
          `INSERT INTO timelines (episode, seq, timeline_id, episode_id, agent, call_index, weight_version, finish_reason, created_at, prompt_ids, prompt_spans, output_ids, output_logprobs, messages, tools, output)
           VALUES (1, @seq, @timeline_id, @episode_id, @agent, @call_index, @weight_version, @finish_reason, @created_at, @prompt_ids, @prompt_spans, @output_ids, @output_logprobs, @messages, @tools, @output)`,
        )
        .run({ seq, ...row });
    });
    old.close();
    const store = openStore(`${temp.path}.v2`);
    try {
      expect(store.episodeTimelines('r1', 'e')).toEqual(
        calls.map((t) => ({ ...t, outputLogprobs: t.outputLogprobs.map((x) => Math.fround(x)) })),
      );
      expect(store.episodeDetail('r1', 'e').calls).toHaveLength(2);
    } finally {
      store.close();
    }
  });

  it('keeps data across reopening', () => {
    temp = tempStore();
    temp.store.createRun(newRun('r1'));
    temp.store.close();
    const store = openStore(temp.path);
    expect(store.listRuns(null).map((r) => r.runId)).toEqual(['r1']);
    store.close();
  });

  it('refuses a database from a newer workbench, leaving it untouched', () => {
    const db = new Database(':memory:');
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    expect(() => migrate(db)).toThrow(/newer than this workbench knows/);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION + 1);
    db.close();
  });

  it('rolls back a failing migration as a whole', () => {
    const db = new Database(':memory:');
    const broken = [
      ...MIGRATIONS,
      {
        version: SCHEMA_VERSION + 1,
        name: 'broken',
        sql: 'CREATE TABLE extra (x INTEGER); CREATE TABLE runs (x INTEGER);',
      },
    ];
    expect(() => migrate(db, broken)).toThrow(/already exists/);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'extra'").get()).toBeUndefined();
    db.close();
  });
});
