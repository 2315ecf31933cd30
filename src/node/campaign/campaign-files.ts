// A campaign on disk: reading the campaign file (YAML or JSON, `${VAR}` from the environment, every
// problem named), its folder under the data folder (`<data>/campaigns/<name>/`: campaign.json,
// study.sqlite, trials/<n>/, report.html, report.md), the runner lock that keeps two runners off
// one campaign, and the copy of the spec that is safe to store and show (tokens and keys removed).
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { expandEnv, parseCampaign, type CampaignSpec } from '../../shared/campaign/spec';

export interface LoadedCampaign {
  spec: CampaignSpec;
  /** The campaign file's folder: a relative `base.task` is resolved from here. */
  baseDir: string;
  file: string;
}

export class CampaignFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'CampaignFileError';
  }
}

/** A campaign or study file read as a document with `${VAR}` expanded; problems thrown as a CampaignFileError. */
export function readRunDoc(file: string, env: NodeJS.ProcessEnv = process.env): { path: string; doc: unknown } {
  const path = resolve(file);
  if (!existsSync(path)) throw new CampaignFileError(path, ['no such file']);
  const text = readFileSync(path, 'utf8');
  let doc: unknown;
  try {
    doc = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new CampaignFileError(path, [
      `not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'}: ${err instanceof Error ? err.message : String(err)}`,
    ]);
  }
  const missing: string[] = [];
  const expanded = expandEnv(doc, env, missing);
  if (missing.length > 0)
    throw new CampaignFileError(
      path,
      missing.map((m) => `\${${m}} is not set in the environment`),
    );
  return { path, doc: expanded };
}

export function loadCampaignFile(file: string, env: NodeJS.ProcessEnv = process.env): LoadedCampaign {
  const { path, doc } = readRunDoc(file, env);
  const parsed = parseCampaign(doc);
  if (!parsed.ok) throw new CampaignFileError(path, parsed.errors);
  return { spec: parsed.spec, baseDir: dirname(path), file: path };
}

/** `$AGENTJET_HOME` or `~/.agentjet`, as for `agentjet ui`. */
export const defaultDataDir = (env: NodeJS.ProcessEnv = process.env): string =>
  resolve(env['AGENTJET_HOME'] ?? join(homedir(), '.agentjet'));

export interface CampaignPaths {
  dir: string;
  spec: string;
  study: string;
  trials: string;
  lock: string;
  reportHtml: string;
  reportMd: string;
}

export function campaignPaths(dataDir: string, name: string): CampaignPaths {
  const dir = join(dataDir, 'campaigns', name);
  return {
    dir,
    spec: join(dir, 'campaign.json'),
    study: join(dir, 'study.sqlite'),
    trials: join(dir, 'trials'),
    lock: join(dir, 'runner.lock'),
    reportHtml: join(dir, 'report.html'),
    reportMd: join(dir, 'report.md'),
  };
}

export const trialDir = (p: CampaignPaths, number: number): string => join(p.trials, String(number).padStart(4, '0'));

/** The spec without secrets (remote tokens, the agent's key): what is stored and shown. */
export function publicSpec(spec: CampaignSpec): Record<string, unknown> {
  return {
    ...spec,
    workers: {
      ...spec.workers,
      remote: spec.workers.remote.map((w) => ({ url: w.url, adminToken: '********', joinToken: '********' })),
    },
    ...(spec.agent ? { agent: { ...spec.agent, apiKey: spec.agent.apiKey ? '********' : '' } } : {}),
  };
}

const LockSchema = z.object({ pid: z.number().int(), startedAt: z.number() });

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the campaign's runner lock (a stale one, whose process is gone, is taken over). */
export function takeLock(p: CampaignPaths, pid = process.pid): () => void {
  mkdirSync(p.dir, { recursive: true });
  if (existsSync(p.lock)) {
    const held = LockSchema.safeParse(
      (() => {
        try {
          return JSON.parse(readFileSync(p.lock, 'utf8')) as unknown;
        } catch {
          return null;
        }
      })(),
    );
    if (held.success && held.data.pid !== pid && alive(held.data.pid)) {
      throw new Error(
        `campaign ${p.dir} is already being run by process ${held.data.pid} (since ${new Date(held.data.startedAt).toISOString()})`,
      );
    }
    rmSync(p.lock, { force: true });
  }
  const fd = openSync(p.lock, 'wx');
  writeSync(fd, JSON.stringify({ pid, startedAt: Date.now() }));
  closeSync(fd);
  return () => rmSync(p.lock, { force: true });
}
