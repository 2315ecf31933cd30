// The store's schema as an ordered list of migrations. `PRAGMA user_version` records how many
// have run; opening a database applies the missing ones in order, each in its own transaction,
// and refuses a database written by a newer workbench. Never edit a shipped migration: append.
import type Database from 'better-sqlite3';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'runs, metrics, code, clients, episodes, timelines, samples',
    sql: `
      CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        run_id TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('local', 'remote')),
        worker_url TEXT NOT NULL,
        model TEXT NOT NULL,
        example TEXT,
        config TEXT NOT NULL,
        created_at REAL NOT NULL,
        ended_at REAL
      );
      CREATE INDEX runs_created ON runs (created_at);

      CREATE TABLE steps (
        run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        reward_mean REAL NOT NULL,
        point TEXT NOT NULL,
        PRIMARY KEY (run, step)
      ) WITHOUT ROWID;

      CREATE TABLE evals (
        run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        weight_version INTEGER NOT NULL,
        time REAL NOT NULL,
        success_rate REAL,
        point TEXT NOT NULL,
        PRIMARY KEY (run, weight_version, time)
      ) WITHOUT ROWID;
      CREATE INDEX evals_time ON evals (run, time);

      CREATE TABLE markers (
        run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        code_version TEXT NOT NULL,
        time REAL NOT NULL,
        step INTEGER NOT NULL,
        previous_code_version TEXT,
        PRIMARY KEY (run, code_version, time)
      ) WITHOUT ROWID;

      CREATE TABLE file_contents (
        hash TEXT PRIMARY KEY,
        content TEXT NOT NULL
      ) WITHOUT ROWID;

      CREATE TABLE code_versions (
        run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        code_version TEXT NOT NULL,
        created_at REAL NOT NULL,
        step INTEGER,
        PRIMARY KEY (run, code_version)
      ) WITHOUT ROWID;

      CREATE TABLE code_version_files (
        run INTEGER NOT NULL,
        code_version TEXT NOT NULL,
        path TEXT NOT NULL,
        hash TEXT NOT NULL REFERENCES file_contents (hash),
        PRIMARY KEY (run, code_version, path),
        FOREIGN KEY (run, code_version) REFERENCES code_versions (run, code_version) ON DELETE CASCADE
      ) WITHOUT ROWID;

      CREATE TABLE clients (
        run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        client_id TEXT NOT NULL,
        row TEXT NOT NULL,
        PRIMARY KEY (run, client_id)
      ) WITHOUT ROWID;

      CREATE TABLE episodes (
        id INTEGER PRIMARY KEY,
        run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        episode_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        task_id TEXT,
        client_id TEXT NOT NULL,
        code_version TEXT,
        reward REAL,
        success INTEGER,
        calls INTEGER NOT NULL,
        created_at REAL NOT NULL,
        finished_at REAL,
        has_timelines INTEGER NOT NULL DEFAULT 0,
        merge_stats TEXT,
        UNIQUE (run, episode_id)
      );
      CREATE INDEX episodes_created ON episodes (run, created_at);
      CREATE INDEX episodes_reward ON episodes (run, reward, created_at);
      CREATE INDEX episodes_client ON episodes (run, client_id, created_at);
      CREATE INDEX episodes_code ON episodes (run, code_version, created_at);
      CREATE INDEX episodes_kind ON episodes (run, kind, created_at);
      CREATE INDEX episodes_status ON episodes (run, status, created_at);

      CREATE TABLE timelines (
        id INTEGER PRIMARY KEY,
        episode INTEGER NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        timeline_id TEXT NOT NULL,
        episode_id TEXT NOT NULL,
        agent TEXT NOT NULL,
        call_index INTEGER NOT NULL,
        weight_version INTEGER NOT NULL,
        finish_reason TEXT NOT NULL,
        created_at REAL NOT NULL,
        prompt_ids BLOB NOT NULL,
        prompt_spans TEXT NOT NULL,
        output_ids BLOB NOT NULL,
        output_logprobs BLOB NOT NULL,
        messages TEXT NOT NULL,
        tools TEXT,
        output TEXT NOT NULL,
        UNIQUE (episode, seq)
      );

      CREATE TABLE samples (
        id INTEGER PRIMARY KEY,
        episode INTEGER NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('linear', 'tree')),
        episode_ids TEXT NOT NULL,
        task_id TEXT,
        length INTEGER NOT NULL,
        token_ids BLOB NOT NULL,
        loss_mask BLOB NOT NULL,
        rollout_logprobs BLOB NOT NULL,
        spans TEXT NOT NULL,
        absorbed TEXT NOT NULL,
        parents BLOB,
        positions BLOB,
        weights BLOB,
        UNIQUE (episode, seq)
      );
    `,
  },
  {
    version: 2,
    name: 'vocabularies and log lines',
    sql: `
      CREATE TABLE vocabs (
        hash TEXT PRIMARY KEY,
        pieces TEXT NOT NULL
      ) WITHOUT ROWID;
      ALTER TABLE runs ADD COLUMN vocab_hash TEXT REFERENCES vocabs (hash);

      CREATE TABLE logs (
        id INTEGER PRIMARY KEY,
        run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        t REAL NOT NULL,
        source TEXT NOT NULL,
        stream TEXT NOT NULL,
        line TEXT NOT NULL
      );
      CREATE INDEX logs_run ON logs (run);
      CREATE INDEX logs_source ON logs (run, source);
    `,
  },
  {
    version: 3,
    name: 'timelines store only what follows the prompt prefix shared with an earlier call; page indexes',
    sql: `
      -- reward_asc pages (unrewarded episodes last) without a sort; task-substring counts from an index.
      CREATE INDEX IF NOT EXISTS episodes_reward_nulls_last ON episodes (run, reward IS NULL, reward, created_at);
      CREATE INDEX IF NOT EXISTS episodes_task ON episodes (run, task_id, created_at);
      ALTER TABLE timelines ADD COLUMN prompt_base INTEGER;
      ALTER TABLE timelines ADD COLUMN prompt_shared INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE timelines ADD COLUMN messages_shared INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE timelines ADD COLUMN spans_shared INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 4,
    name: 'how an episode was trained (step, weight version, advantage, merge settings), beside its samples',
    sql: `
      -- JSON TrainedInfo; NULL: the stored samples are a preview (not trained, or an older run).
      ALTER TABLE episodes ADD COLUMN trained TEXT;
    `,
  },
  {
    version: 5,
    name: "campaigns: trials, their step curves, the research agent's decisions, commands to a runner",
    sql: `
      CREATE TABLE campaigns (
        id INTEGER PRIMARY KEY,
        campaign_id TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        question TEXT NOT NULL,
        spec TEXT NOT NULL,
        dir TEXT NOT NULL,
        state TEXT NOT NULL,
        note TEXT,
        importance TEXT,
        analysis TEXT,
        agent TEXT,
        runner_pid INTEGER,
        heartbeat_at REAL,
        wall_s REAL NOT NULL DEFAULT 0,
        created_at REAL NOT NULL,
        ended_at REAL
      );
      CREATE TABLE campaign_trials (
        campaign INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        state TEXT NOT NULL,
        row TEXT NOT NULL,
        PRIMARY KEY (campaign, number)
      ) WITHOUT ROWID;
      CREATE TABLE campaign_steps (
        campaign INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        step INTEGER NOT NULL,
        point TEXT NOT NULL,
        PRIMARY KEY (campaign, number, step)
      ) WITHOUT ROWID;
      CREATE TABLE campaign_decisions (
        id INTEGER PRIMARY KEY,
        campaign INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
        t REAL NOT NULL,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        rationale TEXT NOT NULL,
        payload TEXT NOT NULL,
        trial INTEGER
      );
      CREATE INDEX campaign_decisions_campaign ON campaign_decisions (campaign, id);
      CREATE TABLE campaign_commands (
        id INTEGER PRIMARY KEY,
        campaign INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
        t REAL NOT NULL,
        command TEXT NOT NULL,
        done_at REAL
      );
      CREATE INDEX campaign_commands_pending ON campaign_commands (campaign, done_at);
    `,
  },
  {
    version: 6,
    name: 'labels, episode metrics, reward models',
    sql: `
      -- A point label (good/bad: other_episode_id '') or a preference between two episodes of a task
      -- group, stored with the pair in id order (value 1: episode_id preferred). One per author and
      -- episode (pair): a new label replaces the author's earlier one.
      CREATE TABLE labels (
        id INTEGER PRIMARY KEY,
        run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        episode_id TEXT NOT NULL,
        other_episode_id TEXT NOT NULL DEFAULT '',
        value INTEGER NOT NULL CHECK (value IN (0, 1)),
        task_id TEXT,
        code_version TEXT,
        other_code_version TEXT,
        author TEXT NOT NULL,
        source TEXT NOT NULL,
        created_at REAL NOT NULL,
        UNIQUE (run, episode_id, other_episode_id, author)
      );
      CREATE INDEX labels_created ON labels (run, created_at);
      CREATE INDEX labels_other ON labels (run, other_episode_id);

      CREATE TABLE episode_metrics (
        episode INTEGER PRIMARY KEY REFERENCES episodes (id) ON DELETE CASCADE,
        metrics TEXT NOT NULL
      );

      CREATE TABLE reward_models (
        run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        folder TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        created_at REAL NOT NULL,
        deployed_at REAL,
        manifest TEXT NOT NULL,
        PRIMARY KEY (run, version)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 7,
    name: 'quarantined episodes, fork probes, regression results',
    sql: `
      CREATE TABLE quarantined_episodes (
        run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        episode_id TEXT NOT NULL,
        code_version TEXT NOT NULL,
        quarantined_at REAL NOT NULL,
        released_at REAL,
        PRIMARY KEY (run, episode_id)
      ) WITHOUT ROWID;

      CREATE TABLE probes (
        id INTEGER PRIMARY KEY,
        run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        spec TEXT NOT NULL,
        created_at REAL NOT NULL,
        UNIQUE (run, name)
      );

      CREATE TABLE probe_results (
        probe INTEGER NOT NULL REFERENCES probes (id) ON DELETE CASCADE,
        weight_version INTEGER NOT NULL,
        at REAL NOT NULL,
        k INTEGER NOT NULL,
        hits INTEGER NOT NULL,
        mean_logprob REAL,
        result TEXT NOT NULL,
        PRIMARY KEY (probe, weight_version, at)
      ) WITHOUT ROWID;

      CREATE TABLE regress_results (
        id INTEGER PRIMARY KEY,
        commit_sha TEXT NOT NULL,
        commit_date REAL NOT NULL,
        subject TEXT NOT NULL,
        bench TEXT NOT NULL,
        figure TEXT NOT NULL,
        seed INTEGER NOT NULL,
        value REAL NOT NULL,
        curve TEXT,
        machine TEXT NOT NULL,
        ran_at REAL NOT NULL
      );
      CREATE INDEX regress_by_figure ON regress_results (bench, figure, commit_date);
    `,
  },
  {
    version: 8,
    name: "an episode's role (the claim's `role`: its baseline group in a multi-role game)",
    sql: `
      ALTER TABLE episodes ADD COLUMN role TEXT;
      CREATE INDEX episodes_role ON episodes (run, role, created_at);
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

function userVersion(db: Database.Database): number {
  const v: unknown = db.pragma('user_version', { simple: true });
  if (typeof v !== 'number') throw new Error(`PRAGMA user_version returned ${String(v)}`);
  return v;
}

/** Applies the migrations above the database's version, in order; returns the versions applied. */
export function migrate(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): number[] {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration ${i} has version ${m.version}, expected ${i + 1}`);
  });
  const current = userVersion(db);
  if (current > migrations.length) {
    throw new Error(
      `this database has schema version ${current}, newer than this workbench knows (${migrations.length}); use ` +
        'a newer workbench',
    );
  }
  const applied: number[] = [];
  for (const m of migrations.slice(current)) {
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
    applied.push(m.version);
  }
  return applied;
}
