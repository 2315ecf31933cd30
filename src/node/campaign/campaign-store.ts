// Campaign data in the workbench's SQLite file (migration 4): campaigns, their trials (a TrialRow
// each, with its evaluation points), every trial's train-step curve, the research agent's decision
// log, and commands from the workbench to a runner — the runner may be another process (`agentjet
// campaign run` in a terminal), so the database is also the channel between the two. Its own
// better-sqlite3 connection to the same file (WAL: the workbench and a runner both read and write).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import {
  AgentStateSchema,
  CampaignCommandSchema,
  DecisionSchema,
  StepPointSchema,
  type AgentState,
  type CampaignCommand,
  type CampaignStepPoint,
  type CampaignSummary,
  type Decision,
  type DecisionStatus,
} from '../../shared/campaign/api';
import { countStates, TrialRowSchema, type CampaignState, type TrialRow } from '../../shared/campaign/trials';
import { WorkbenchError } from '../../shared/workbench-api';
import { createContext, parseRow, parseStoredJson, type StoreContext } from '../store/context';
import { openDatabase } from '../store/open-database';

/** A runner that has not written a heartbeat for this long is gone. */
export const HEARTBEAT_STALE_MS = 30_000;

export interface NewCampaign {
  campaignId: string;
  name: string;
  question: string;
  spec: unknown;
  dir: string;
  createdAt: number;
}

const CampaignRowSchema = z.object({
  id: z.number().int(),
  campaign_id: z.string(),
  name: z.string(),
  question: z.string(),
  spec: z.string(),
  dir: z.string(),
  state: z.enum(['running', 'stopped', 'done', 'failed']),
  note: z.string().nullable(),
  importance: z.string().nullable(),
  analysis: z.string().nullable(),
  agent: z.string().nullable(),
  runner_pid: z.number().int().nullable(),
  heartbeat_at: z.number().nullable(),
  wall_s: z.number(),
  created_at: z.number(),
  ended_at: z.number().nullable(),
});
type CampaignRow = z.infer<typeof CampaignRowSchema>;

const DecisionRowSchema = z.object({
  id: z.number().int(),
  t: z.number(),
  kind: z.string(),
  status: z.string(),
  rationale: z.string(),
  payload: z.string(),
  trial: z.number().int().nullable(),
});

export class CampaignStore {
  private readonly ctx: StoreContext;

  private constructor(private readonly db: Database.Database) {
    this.ctx = createContext(db);
  }

  /** Opens (migrating) the workbench database at `path`. */
  static open(path: string): CampaignStore {
    mkdirSync(dirname(path), { recursive: true });
    const db = openDatabase(path);
    return new CampaignStore(db);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  private key(campaignId: string): number {
    const id: unknown = this.ctx.stmt('SELECT id FROM campaigns WHERE campaign_id = ?').pluck().get(campaignId);
    if (typeof id !== 'number')
      throw new WorkbenchError('not_found', `no campaign ${JSON.stringify(campaignId)} in the store`);
    return id;
  }

  private row(campaignId: string): CampaignRow {
    return parseRow(
      CampaignRowSchema,
      this.ctx.stmt('SELECT * FROM campaigns WHERE campaign_id = ?').get(campaignId),
      'campaign',
    );
  }

  has(campaignId: string): boolean {
    return this.ctx.stmt('SELECT 1 FROM campaigns WHERE campaign_id = ?').pluck().get(campaignId) !== undefined;
  }

  /** Creates the campaign, or refreshes its spec and folder (a resumed campaign keeps its history). */
  upsertCampaign(c: NewCampaign): void {
    this.ctx
      .stmt(
        `INSERT INTO campaigns (campaign_id, name, question, spec, dir, state, created_at)
      VALUES (?, ?, ?, ?, ?, 'stopped', ?)
      ON CONFLICT (campaign_id) DO UPDATE SET
        name = excluded.name, question = excluded.question, spec = excluded.spec, dir = excluded.dir`,
      )
      .run(c.campaignId, c.name, c.question, JSON.stringify(c.spec), c.dir, c.createdAt);
  }

  setState(campaignId: string, state: CampaignState, note: string | null, at: number): void {
    this.ctx
      .stmt('UPDATE campaigns SET state = ?, note = ?, ended_at = ? WHERE campaign_id = ?')
      .run(state, note, state === 'running' ? null : at, campaignId);
  }

  /** The runner is alive (every few seconds); `wallS` is added to the campaign's wall time. */
  heartbeat(campaignId: string, pid: number | null, at: number, wallS = 0): void {
    this.ctx
      .stmt('UPDATE campaigns SET runner_pid = ?, heartbeat_at = ?, wall_s = wall_s + ? WHERE campaign_id = ?')
      .run(pid, pid === null ? null : at, wallS, campaignId);
  }

  /** The live runner's pid, or null (none, or its heartbeat is stale). */
  liveRunner(campaignId: string, now: number): number | null {
    const r = this.row(campaignId);
    return r.runner_pid !== null && r.heartbeat_at !== null && now - r.heartbeat_at < HEARTBEAT_STALE_MS
      ? r.runner_pid
      : null;
  }

  setImportance(campaignId: string, importance: Record<string, number> | null): void {
    this.ctx
      .stmt('UPDATE campaigns SET importance = ? WHERE campaign_id = ?')
      .run(importance ? JSON.stringify(importance) : null, campaignId);
  }

  setAnalysis(campaignId: string, text: string): void {
    this.ctx.stmt('UPDATE campaigns SET analysis = ? WHERE campaign_id = ?').run(text, campaignId);
  }

  setAgent(campaignId: string, agent: AgentState | null): void {
    this.ctx
      .stmt('UPDATE campaigns SET agent = ? WHERE campaign_id = ?')
      .run(agent ? JSON.stringify(AgentStateSchema.parse(agent)) : null, campaignId);
  }

  // ----- trials -----

  putTrial(row: TrialRow): void {
    const r = TrialRowSchema.parse(row);
    this.ctx
      .stmt(
        'INSERT INTO campaign_trials (campaign, number, state, row) VALUES (?, ?, ?, ?) ON CONFLICT (campaign, number) DO UPDATE SET state = excluded.state, row = excluded.row',
      )
      .run(this.key(r.campaignId), r.number, r.state, JSON.stringify(r));
  }

  trials(campaignId: string): TrialRow[] {
    const rows = this.ctx
      .stmt('SELECT row FROM campaign_trials WHERE campaign = ? ORDER BY number')
      .pluck()
      .all(this.key(campaignId));
    return rows.map((text) => parseStoredJson(TrialRowSchema, String(text), 'campaign trial'));
  }

  putStep(campaignId: string, number: number, p: CampaignStepPoint): void {
    this.ctx
      .stmt('INSERT OR REPLACE INTO campaign_steps (campaign, number, step, point) VALUES (?, ?, ?, ?)')
      .run(this.key(campaignId), number, p.step, JSON.stringify(StepPointSchema.parse(p)));
  }

  /** Train-step curves by trial number. */
  curves(campaignId: string): Record<string, CampaignStepPoint[]> {
    const out: Record<string, CampaignStepPoint[]> = {};
    const rows = this.ctx
      .stmt('SELECT number, point FROM campaign_steps WHERE campaign = ? ORDER BY number, step')
      .all(this.key(campaignId));
    for (const raw of rows) {
      const r = parseRow(z.object({ number: z.number().int(), point: z.string() }), raw, 'campaign step');
      (out[String(r.number)] ??= []).push(parseStoredJson(StepPointSchema, r.point, 'campaign step'));
    }
    return out;
  }

  // ----- the research agent's decisions -----

  addDecision(campaignId: string, d: Omit<Decision, 'id'>): number {
    const parsed = DecisionSchema.omit({ id: true }).parse(d);
    const info = this.ctx
      .stmt(
        'INSERT INTO campaign_decisions (campaign, t, kind, status, rationale, payload, trial) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        this.key(campaignId),
        parsed.t,
        parsed.kind,
        parsed.status,
        parsed.rationale,
        JSON.stringify(parsed.payload),
        parsed.trial,
      );
    return Number(info.lastInsertRowid);
  }

  /** Changes a decision's status (and merges into its payload); false when it was not in `from`. */
  setDecisionStatus(
    campaignId: string,
    id: number,
    status: DecisionStatus,
    from: readonly DecisionStatus[],
    payload: Record<string, unknown> = {},
  ): boolean {
    const d = this.decisions(campaignId).find((x) => x.id === id);
    if (!d || !from.includes(d.status)) return false;
    this.ctx
      .stmt('UPDATE campaign_decisions SET status = ?, payload = ? WHERE id = ?')
      .run(status, JSON.stringify({ ...d.payload, ...payload }), id);
    return true;
  }

  decisions(campaignId: string): Decision[] {
    return this.ctx
      .stmt(
        'SELECT id, t, kind, status, rationale, payload, trial FROM campaign_decisions WHERE campaign = ? ORDER BY id',
      )
      .all(this.key(campaignId))
      .map((raw) => {
        const r = parseRow(DecisionRowSchema, raw, 'campaign decision');
        return DecisionSchema.parse({ ...r, payload: JSON.parse(r.payload) as unknown });
      });
  }

  // ----- commands from the workbench to a runner -----

  addCommand(campaignId: string, command: CampaignCommand, at: number): void {
    this.ctx
      .stmt('INSERT INTO campaign_commands (campaign, t, command) VALUES (?, ?, ?)')
      .run(this.key(campaignId), at, JSON.stringify(CampaignCommandSchema.parse(command)));
  }

  /** The commands not yet taken, oldest first; taking marks them done. */
  takeCommands(campaignId: string, at: number): CampaignCommand[] {
    const key = this.key(campaignId);
    return this.db.transaction(() => {
      const rows = this.ctx
        .stmt('SELECT id, command FROM campaign_commands WHERE campaign = ? AND done_at IS NULL ORDER BY id')
        .all(key);
      const out: CampaignCommand[] = [];
      for (const raw of rows) {
        const r = parseRow(z.object({ id: z.number().int(), command: z.string() }), raw, 'campaign command');
        this.ctx.stmt('UPDATE campaign_commands SET done_at = ? WHERE id = ?').run(at, r.id);
        const parsed = CampaignCommandSchema.safeParse(JSON.parse(r.command));
        if (parsed.success) out.push(parsed.data);
      }
      return out;
    })();
  }

  // ----- reads for the panel -----

  summary(campaignId: string, now: number): CampaignSummary {
    return this.summarize(this.row(campaignId), now);
  }

  list(now: number): CampaignSummary[] {
    const rows = this.ctx.stmt('SELECT * FROM campaigns ORDER BY created_at DESC').all();
    return rows.map((raw) => this.summarize(parseRow(CampaignRowSchema, raw, 'campaign'), now));
  }

  spec(campaignId: string): Record<string, unknown> {
    return parseStoredJson(z.record(z.string(), z.unknown()), this.row(campaignId).spec, 'campaign spec');
  }

  extras(campaignId: string): {
    importance: Record<string, number> | null;
    analysis: string | null;
    agent: AgentState | null;
    dir: string;
  } {
    const r = this.row(campaignId);
    return {
      importance: r.importance ? parseStoredJson(z.record(z.string(), z.number()), r.importance, 'importance') : null,
      analysis: r.analysis,
      agent: r.agent ? parseStoredJson(AgentStateSchema, r.agent, 'agent state') : null,
      dir: r.dir,
    };
  }

  private summarize(r: CampaignRow, now: number): CampaignSummary {
    const trials = this.trials(r.campaign_id);
    const counts = countStates(trials);
    const spec = parseStoredJson(
      z.object({
        budget: z.object({ trials: z.number().int() }),
        objective: z.object({ direction: z.string() }).optional(),
      }),
      r.spec,
      'campaign spec',
    );
    const values = trials.filter((t) => t.state === 'complete' && t.value !== null).map((t) => t.value!);
    const minimize = spec.objective?.direction === 'minimize';
    return {
      campaignId: r.campaign_id,
      name: r.name,
      question: r.question,
      state: r.state,
      dir: r.dir,
      createdAt: r.created_at,
      endedAt: r.ended_at,
      live: r.runner_pid !== null && r.heartbeat_at !== null && now - r.heartbeat_at < HEARTBEAT_STALE_MS,
      trials: counts.trials,
      budgetTrials: spec.budget.trials,
      running: counts.running,
      completed: counts.completed,
      pruned: counts.pruned,
      failed: counts.failed,
      bestValue: values.length ? (minimize ? Math.min(...values) : Math.max(...values)) : null,
      wallS: r.wall_s,
      note: r.note,
    };
  }
}
