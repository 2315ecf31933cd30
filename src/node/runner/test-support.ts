// Helpers for the runner's tests: throwaway client projects on disk, a tiny real HTTP server that
// clients report to, polling, and process liveness checks.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { processAlive } from './process-group';

export const REPO_NODE_MODULES = join(import.meta.dirname, '..', '..', '..', 'node_modules');

export interface TempProject {
  dir: string;
  write(path: string, text: string): Promise<string>;
  cleanup(): Promise<void>;
}

export async function tempProject(files: Record<string, string> = {}): Promise<TempProject> {
  const dir = await mkdtemp(join(tmpdir(), 'agentjet-runner-test-'));
  const write = async (path: string, text: string): Promise<string> => {
    const abs = join(dir, path);
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, text);
    return abs;
  };
  for (const [path, text] of Object.entries(files)) await write(path, text);
  return { dir, write, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** What the test clients POST to `${AGENTJET_SERVER_URL}/report`. */
export const ReportSchema = z.object({
  kind: z.string(),
  clientId: z.string(),
  codeVersion: z.string(),
  pid: z.number(),
  joinToken: z.string().optional(),
  serverUrl: z.string().optional(),
  index: z.string().optional(),
  userEnv: z.string().optional(),
  adminToken: z.string().nullable().optional(),
  label: z.string().optional(),
  childPid: z.number().optional(),
  t: z.number().optional(),
});
export type Report = z.infer<typeof ReportSchema>;

export interface Collector {
  url: string;
  reports: Report[];
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1, port 0, that records every report it is sent. */
export async function startCollector(): Promise<Collector> {
  const reports: Report[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const parsed = ReportSchema.safeParse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        if (parsed.success) reports.push({ ...parsed.data, t: Date.now() });
        res.writeHead(parsed.success ? 200 : 400).end('{}');
      } catch {
        res.writeHead(400).end('{}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('collector has no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    reports,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls `check` until it returns a value other than undefined/false, or throws after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => T | undefined | false, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Whether a process is still running (a zombie awaiting its reaper counts as gone). */
export const isAlive = processAlive;

/** Pids of the live processes whose command line contains `text` (Linux: /proc). */
export function pidsRunning(text: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    if (cmdline.includes(text) && isAlive(Number(name))) pids.push(Number(name));
  }
  return pids;
}

/**
 * A sibling module every test client imports: reports to the collector with the client's identity.
 */
export const REPORT_TS = `
export async function report(kind: string, extra: Record<string, unknown> = {}): Promise<void> {
  const body = {
    kind,
    clientId: process.env.AGENTJET_CLIENT_ID,
    codeVersion: process.env.AGENTJET_CODE_VERSION,
    pid: process.pid,
    ...extra,
  };
  await fetch(process.env.AGENTJET_SERVER_URL + '/report', { method: 'POST', body: JSON.stringify(body) });
}
`;
