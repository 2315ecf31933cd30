// The workbench's HTTP client for a worker's admin endpoints: every answer parsed with the shared
// zod schemas, and failures turned into clear, distinct WorkbenchErrors (unreachable, not an
// AgentJet worker, token rejected, malformed URL, not found, certificate changed). Requests go
// through Node's http/https with the connection's agent: an https worker's pinned certificate.
import { request as httpRequest, type Agent } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { z } from 'zod';
import { HealthSchema, StatusSchema, type Health, type Status } from '../../shared/swarm-protocol';
import { WorkbenchError } from '../../shared/workbench-api';
import { CertificateMismatchError } from '../pinned-tls';

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

/** GET (or, with a body, POST JSON to) `url` through `agent` (an https worker's PinnedAgent), within `timeoutMs`. */
function get(
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
  agent?: Agent,
  body?: string,
): Promise<Answer> {
  const request = url.startsWith('https:') ? httpsRequest : httpRequest;
  const method = body === undefined ? 'GET' : 'POST';
  const sent = body === undefined ? headers : { ...headers, 'content-type': 'application/json' };
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, headers: sent, ...(agent ? { agent } : {}), signal: AbortSignal.timeout(timeoutMs) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
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

/** A worker's error answer (`{error: {message}}`) as its message, else the text's start. */
function workerMessage(text: string): string {
  const parsed = z.object({ error: z.object({ message: z.string() }) }).safeParse(
    (() => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return null;
      }
    })(),
  );
  return parsed.success ? parsed.data.error.message.slice(0, 500) : text.slice(0, 300);
}

export class WorkerHttp {
  constructor(
    readonly url: string,
    private readonly adminToken: string,
    private readonly timeoutMs = 10_000,
    /** The https worker's pinned-certificate agent (none: plain HTTP, or the system's CAs). */
    private readonly agent?: Agent,
  ) {}

  /** GET `path` with the admin token; the body parsed with `schema`. */
  async get<T extends z.ZodType>(path: string, schema: T, timeoutMs = this.timeoutMs): Promise<z.output<T>> {
    return this.answer(path, await this.fetch(path, true, timeoutMs), schema);
  }

  /** POST `body` as JSON to `path` with the admin token; the answer parsed with `schema`. */
  async post<T extends z.ZodType>(
    path: string,
    body: unknown,
    schema: T,
    timeoutMs = this.timeoutMs,
  ): Promise<z.output<T>> {
    return this.answer(path, await this.fetch(path, true, timeoutMs, JSON.stringify(body)), schema);
  }

  private answer<T extends z.ZodType>(path: string, res: Answer, schema: T): z.output<T> {
    if (res.status === 401 || res.status === 403) {
      throw new WorkbenchError('token_rejected', `${this.url}: the admin token was rejected (HTTP ${res.status})`);
    }
    if (res.status === 404) throw new WorkbenchError('not_found', `${this.url}${path}: not found`);
    const text = res.text;
    if (res.status < 200 || res.status > 299)
      throw new WorkbenchError('worker_error', `${this.url}${path}: HTTP ${res.status} ${workerMessage(text)}`);
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new WorkbenchError(
        'not_a_worker',
        `${this.url}${path}: the answer is not JSON; is this an AgentJet worker?`,
      );
    }
    const parsed = schema.safeParse(raw);
    if (!parsed.success)
      throw new WorkbenchError(
        'bad_answer',
        `${this.url}${path}: unexpected answer (${parsed.error.issues[0]?.message ?? 'invalid'})`,
      );
    return parsed.data;
  }

  /** GET /health (no auth): a `not_a_worker` error unless it answers like an AgentJet worker. */
  async health(timeoutMs = this.timeoutMs): Promise<Health> {
    const res = await this.fetch('/health', false, timeoutMs);
    const text = res.text;
    let raw: unknown = null;
    try {
      raw = JSON.parse(text);
    } catch {
      // handled below
    }
    const parsed = HealthSchema.safeParse(raw);
    if (!parsed.success)
      throw new WorkbenchError(
        'not_a_worker',
        `${this.url} is not an AgentJet worker (GET /health answered HTTP ${res.status} without a worker's health)`,
      );
    return parsed.data;
  }

  status(): Promise<Status> {
    return this.get('/swarm/v1/status', StatusSchema);
  }

  /** Health, then the admin-only status: the checks of attaching, each with its own error. */
  async probe(): Promise<{ health: Health; status: Status }> {
    const health = await this.health();
    // The events stream needs the admin token; /config needs it too, where /status only needs a join token.
    await this.get('/swarm/v1/config', z.object({ strategy: z.string() }).loose());
    return { health, status: await this.status() };
  }

  private async fetch(path: string, auth: boolean, timeoutMs: number, body?: string): Promise<Answer> {
    try {
      return await get(
        `${this.url}${path}`,
        auth ? { authorization: `Bearer ${this.adminToken}` } : {},
        timeoutMs,
        this.agent,
        body,
      );
    } catch (err) {
      if (err instanceof CertificateMismatchError)
        throw new WorkbenchError('certificate_changed', `${this.url}: ${err.message}`);
      throw new WorkbenchError('unreachable', `cannot reach ${this.url}: ${networkReason(err)}`);
    }
  }
}
