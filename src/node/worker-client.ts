// WorkerClient: the backend's one HTTP client for a worker (the workbench, campaigns, vibe training,
// the benchmarks). Every call goes through the route table (src/shared/worker-routes.ts): its path,
// method and answer schema; failures become clear, distinct `WorkerCallError`s (unreachable, not an
// AgentJet worker, token rejected, not found, the worker's own error code, certificate changed).
// Requests go through Node's http/https with the connection's agent: an https worker's pinned certificate.
import { request as httpRequest, type Agent } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ErrorBodySchema, type Health, type Status } from '../shared/swarm-protocol';
import { WorkbenchError } from '../shared/workbench-api';
import {
  routePath,
  workerRoutes,
  type RouteAnswer,
  type RouteCall,
  type RouteSpec,
  type WorkerRouteName,
} from '../shared/worker-routes';
import { CertificateMismatchError } from './pinned-tls';

/** A failed worker call: the HTTP status (0: no answer) and a code to branch on. */
export class WorkerCallError extends WorkbenchError {
  constructor(
    readonly status: number,
    code: string,
    message: string,
  ) {
    super(code, message);
    this.name = 'WorkerCallError';
  }
}

/** A worker's base URL (`http(s)://host:port`, no trailing slash), or a `malformed_url` error. */
export function normalizeWorkerUrl(raw: string): string {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  } catch {
    throw new WorkbenchError('malformed_url', `not a URL: ${JSON.stringify(raw)} (expected e.g. http://host:8321)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new WorkbenchError('malformed_url', `${raw}: only http:// and https:// worker URLs are supported`);
  if (!url.hostname) throw new WorkbenchError('malformed_url', `${raw}: the URL names no host`);
  if (url.search || url.hash)
    throw new WorkbenchError('malformed_url', `${raw}: a worker URL has no query or fragment`);
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

interface Answer {
  status: number;
  text: string;
}

interface Exchange {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  agent?: Agent;
}

/** One request through `agent` (an https worker's PinnedAgent): status and body, within `timeoutMs`. */
function exchange(x: Exchange): Promise<Answer> {
  const request = x.url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      x.url,
      {
        method: x.method,
        headers: x.headers,
        ...(x.agent ? { agent: x.agent } : {}),
        signal: AbortSignal.timeout(x.timeoutMs),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(x.body);
  });
}

function networkReason(err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  const code = cause instanceof Error && 'code' in cause ? String(cause.code) : '';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (
    code === 'ETIMEDOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'))
  )
    return 'timed out';
  if (code === 'ECONNRESET') return 'connection reset';
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'EPROTO')
    return 'no TLS handshake (does the worker serve plain HTTP? then use http://)';
  return cause instanceof Error ? cause.message : String(cause);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export interface WorkerClientOptions {
  /** Longest single call unless the call says otherwise (default 10 s). */
  timeoutMs?: number;
  /** The https worker's pinned-certificate agent (none: plain HTTP, or the system's CAs). */
  agent?: Agent;
}

export class WorkerClient {
  private readonly timeoutMs: number;
  private readonly agent: Agent | undefined;

  constructor(
    readonly url: string,
    private readonly adminToken: string,
    o: WorkerClientOptions = {},
  ) {
    this.timeoutMs = o.timeoutMs ?? 10_000;
    this.agent = o.agent;
  }

  /** Calls route `name` with the admin token; the answer parsed with the route's schema. */
  async call<K extends WorkerRouteName>(
    name: K,
    input: RouteCall<K>,
    o: { timeoutMs?: number } = {},
  ): Promise<RouteAnswer<K>> {
    const r: RouteSpec = workerRoutes[name];
    const fields = input as {
      params?: Record<string, string>;
      query?: Record<string, string | number>;
      body?: unknown;
    };
    const path = routePath(r, fields.params, fields.query);
    const hasBody = r.method !== 'GET';
    const res = await this.fetch(
      r.method,
      path,
      true,
      o.timeoutMs ?? this.timeoutMs,
      hasBody ? (fields.body ?? {}) : undefined,
    );
    const where = `${r.method} ${this.url}${path}`;
    if (res.status < 200 || res.status > 299) throw this.refusal(res, where);
    const raw = parseJson(res.text);
    if (raw === undefined)
      throw new WorkerCallError(
        res.status,
        'not_a_worker',
        `${where}: the answer is not JSON; is this an AgentJet worker?`,
      );
    if (!r.response) throw new Error(`${r.method} ${r.path}: a stream or WebSocket route, not callable here`);
    const parsed = r.response.safeParse(raw);
    if (!parsed.success)
      throw new WorkerCallError(
        res.status,
        'bad_answer',
        `${where}: unexpected answer (${parsed.error.issues[0]?.message ?? 'invalid'})`,
      );
    // The schema is the route's own `response`, so its output is the route's answer type.
    return parsed.data as RouteAnswer<K>;
  }

  /** GET /health (no credential): a `not_a_worker` error unless it answers like an AgentJet worker. */
  async health(timeoutMs = this.timeoutMs): Promise<Health> {
    const r = workerRoutes.health;
    const res = await this.fetch(r.method, r.path, false, timeoutMs);
    const parsed = r.response.safeParse(parseJson(res.text));
    if (!parsed.success)
      throw new WorkerCallError(
        res.status,
        'not_a_worker',
        `${this.url} is not an AgentJet worker (GET /health answered HTTP ${res.status} without a worker's health)`,
      );
    return parsed.data;
  }

  status(): Promise<Status> {
    return this.call('status', {});
  }

  /** Health, then the admin-only config and the status: the checks of attaching, each with its own error. */
  async probe(): Promise<{ health: Health; status: Status }> {
    const health = await this.health();
    // The events stream needs the admin token; /config needs it too, where /status only needs a join token.
    await this.call('config', {});
    return { health, status: await this.status() };
  }

  /** A non-2xx answer: the token refused, not found, or the worker's own error code and message. */
  private refusal(res: Answer, where: string): WorkerCallError {
    if (res.status === 401 || res.status === 403)
      return new WorkerCallError(
        res.status,
        'token_rejected',
        `${this.url}: the admin token was rejected (HTTP ${res.status})`,
      );
    const body = ErrorBodySchema.safeParse(parseJson(res.text));
    if (res.status === 404) return new WorkerCallError(404, 'not_found', `${where}: not found`);
    const detail = body.success ? body.data.error.message : res.text.slice(0, 300);
    return new WorkerCallError(
      res.status,
      body.success ? body.data.error.code : 'worker_error',
      `${where}: HTTP ${res.status} ${detail}`,
    );
  }

  private async fetch(method: string, path: string, auth: boolean, timeoutMs: number, body?: unknown): Promise<Answer> {
    const headers: Record<string, string> = auth ? { authorization: `Bearer ${this.adminToken}` } : {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await exchange({
        method,
        url: `${this.url}${path}`,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        timeoutMs,
        ...(this.agent ? { agent: this.agent } : {}),
      });
    } catch (err) {
      if (err instanceof CertificateMismatchError)
        throw new WorkerCallError(0, 'certificate_changed', `${this.url}: ${err.message}`);
      throw new WorkerCallError(0, 'unreachable', `cannot reach ${this.url}: ${networkReason(err)}`);
    }
  }
}
