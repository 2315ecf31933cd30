// SwarmClient: the swarm server's client API (claim / end / abort / agree-sync / status), with every
// answer parsed by the shared zod schemas and retries with backoff while the server answers 503 or
// is briefly unreachable, bounded by an overall deadline.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { ClaimResponse, EndRequest, EndResponse, EpisodeKind, Status } from '../shared/swarm-protocol';
import { routePath, workerRoutes, type RouteAnswer, type RouteSpec } from '../shared/worker-routes';
import { runEpisode, type EpisodeFn, type EpisodeOptions, type EpisodeOutcome, type TaskRef } from './episode';
import { connectionError, errorFromResponse, SwarmError } from './errors';
import { backoffMs, RETRY_DEFAULTS, sleep, type RetryOptions } from './retry';
import { caFromEnv, fetchTrusting } from './tls';

export interface SwarmClientOptions {
  /** The worker's URL, e.g. `http://127.0.0.1:8321`. */
  url: string;
  joinToken: string;
  /** Identifies this client to the server (default: `sdk-<pid>-<random>`). */
  clientId?: string;
  /** The client code version every claim is tagged with (the runner sets AGENTJET_CODE_VERSION). */
  codeVersion?: string;
  /** A fetch implementation (default: the global one, or one trusting `ca`). */
  fetch?: typeof fetch;
  /**
   * PEM of a CA bundle or of the worker's self-signed certificate to trust for an https worker (fromEnv:
   * AGENTJET_CA_FILE).
   */
  ca?: string | Buffer;
  retry?: RetryOptions;
  /** Longest single HTTP attempt (default 60 s). */
  requestTimeoutMs?: number;
  /** Called before each retry wait (for logs). */
  onRetry?: (info: { what: string; attempt: number; delayMs: number; error: SwarmError }) => void;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's overall retry deadline for this call. */
  deadlineMs?: number;
}

export interface ClaimOptions extends CallOptions {
  kind?: EpisodeKind;
  taskId?: string;
  /** The role this episode plays when one model plays several (its REINFORCE baseline is per role). */
  role?: string;
  /** Inactivity timeout of the episode on the server. */
  timeoutS?: number;
}

export type AgreeSyncResponse = RouteAnswer<'agreeSync'>;
export type AbortResponse = RouteAnswer<'abort'>;

export class SwarmClient {
  readonly url: string;
  readonly clientId: string;
  readonly codeVersion: string | undefined;
  private readonly joinToken: string;
  private readonly fetchImpl: typeof fetch;
  private readonly retry: Required<RetryOptions>;
  private readonly requestTimeoutMs: number;
  private readonly onRetry: SwarmClientOptions['onRetry'];

  constructor(o: SwarmClientOptions) {
    if (!/^https?:\/\//.test(o.url))
      throw new SwarmError(
        0,
        'invalid_request_error',
        'invalid_url',
        `SwarmClient: url must start with http:// or https:// (got ${JSON.stringify(o.url)})`,
      );
    if (!o.joinToken)
      throw new SwarmError(0, 'invalid_request_error', 'missing_token', 'SwarmClient: joinToken is required');
    this.url = o.url.replace(/\/+$/, '');
    this.joinToken = o.joinToken;
    this.clientId = o.clientId ?? `sdk-${process.pid}-${randomBytes(4).toString('hex')}`;
    this.codeVersion = o.codeVersion;
    this.fetchImpl = o.fetch ?? (o.ca !== undefined ? fetchTrusting(o.ca) : globalThis.fetch);
    this.retry = { ...RETRY_DEFAULTS, ...o.retry };
    this.requestTimeoutMs = o.requestTimeoutMs ?? 60_000;
    this.onRetry = o.onRetry;
  }

  /**
   * A client from AGENTJET_SERVER_URL (as the client runner sets it), AGENTJET_JOIN_TOKEN and (optionally)
   * AGENTJET_CLIENT_ID, AGENTJET_CODE_VERSION and AGENTJET_CA_FILE.
   */
  static fromEnv(env: NodeJS.ProcessEnv = process.env, o: Partial<SwarmClientOptions> = {}): SwarmClient {
    const url = o.url ?? env['AGENTJET_SERVER_URL'];
    const joinToken = o.joinToken ?? env['AGENTJET_JOIN_TOKEN'];
    if (!url || !joinToken)
      throw new SwarmError(
        0,
        'invalid_request_error',
        'missing_env',
        'SwarmClient.fromEnv: set AGENTJET_SERVER_URL and AGENTJET_JOIN_TOKEN',
      );
    const clientId = o.clientId ?? env['AGENTJET_CLIENT_ID'];
    const codeVersion = o.codeVersion ?? env['AGENTJET_CODE_VERSION'];
    const ca = o.ca ?? caFromEnv(env);
    return new SwarmClient({
      ...o,
      ...(ca !== undefined ? { ca } : {}),
      url,
      joinToken,
      ...(clientId ? { clientId } : {}),
      ...(codeVersion ? { codeVersion } : {}),
    });
  }

  /** Claims an episode: the OpenAI base URL, the episode key and the model to call. */
  claim(o: ClaimOptions = {}): Promise<ClaimResponse> {
    const body = {
      clientId: this.clientId,
      kind: o.kind ?? 'train',
      ...(this.codeVersion !== undefined ? { codeVersion: this.codeVersion } : {}),
      ...(o.taskId !== undefined ? { taskId: o.taskId } : {}),
      ...(o.role !== undefined ? { role: o.role } : {}),
      ...(o.timeoutS !== undefined ? { timeoutS: o.timeoutS } : {}),
    };
    const r = workerRoutes.claim;
    return this.call(r, routePath(r), body, r.response, 'claim', o);
  }

  /** Ends an episode with its reward; a train episode joins the training pool. */
  end(episodeId: string, result: EndRequest, o: CallOptions = {}): Promise<EndResponse> {
    const r = workerRoutes.end;
    return this.call(r, routePath(r, { id: episodeId }), result, r.response, 'end', o);
  }

  /** Aborts an episode: it is never trained. */
  abort(episodeId: string, reason?: string, o: CallOptions = {}): Promise<AbortResponse> {
    const body = reason !== undefined ? { reason: reason.slice(0, 500) } : {};
    const r = workerRoutes.abort;
    return this.call(r, routePath(r, { id: episodeId }), body, r.response, 'abort', o);
  }

  /** Agrees to a weight sync (strategies C4/C5). */
  agreeSync(o: CallOptions = {}): Promise<AgreeSyncResponse> {
    const r = workerRoutes.agreeSync;
    return this.call(r, routePath(r, { id: this.clientId }), {}, r.response, 'agree-sync', o);
  }

  /** Registers this client under its id, with an optional display name. */
  register(name?: string, o: CallOptions = {}): Promise<RouteAnswer<'registerClient'>> {
    const r = workerRoutes.registerClient;
    return this.call(
      r,
      routePath(r),
      { clientId: this.clientId, ...(name ? { name } : {}) },
      r.response,
      'register',
      o,
    );
  }

  /** Leaves the swarm: the server aborts this client's open episodes. */
  leave(o: CallOptions = {}): Promise<RouteAnswer<'leave'>> {
    const r = workerRoutes.leave;
    return this.call(r, routePath(r, { id: this.clientId }), {}, r.response, 'leave', o);
  }

  /** The worker's status snapshot. */
  status(o: CallOptions = {}): Promise<Status> {
    const r = workerRoutes.status;
    return this.call(r, routePath(r), undefined, r.response, 'status', o);
  }

  /** Claims, runs `fn`, ends with its reward — or aborts when `fn` throws or the deadline passes. */
  episode(task: TaskRef, fn: EpisodeFn, o: EpisodeOptions = {}): Promise<EpisodeOutcome> {
    return runEpisode(this, task, fn, o);
  }

  private async call<T>(
    r: RouteSpec,
    path: string,
    body: unknown,
    schema: z.ZodType<T>,
    what: string,
    o: CallOptions,
  ): Promise<T> {
    const t0 = Date.now();
    const deadline = t0 + (o.deadlineMs ?? this.retry.deadlineMs);
    for (let attempt = 0; ; attempt++) {
      let error: SwarmError;
      try {
        return await this.attempt(r.method, path, body, schema, what, o.signal);
      } catch (err) {
        if (!(err instanceof SwarmError) || !err.retryable) throw err;
        error = err;
      }
      const delayMs = backoffMs(attempt, error.retryAfterS, this.retry);
      if (Date.now() + delayMs > deadline) {
        throw new SwarmError(
          error.status,
          error.type,
          error.code,
          `${error.message} (gave up after ${attempt + 1} attempts in ${Date.now() - t0} ms)`,
          error.retryAfterS,
        );
      }
      this.onRetry?.({ what, attempt, delayMs, error });
      await sleep(delayMs, o.signal);
    }
  }

  private async attempt<T>(
    method: string,
    path: string,
    body: unknown,
    schema: z.ZodType<T>,
    what: string,
    signal?: AbortSignal,
  ): Promise<T> {
    const timeout = AbortSignal.timeout(this.requestTimeoutMs);
    const headers: Record<string, string> = { authorization: `Bearer ${this.joinToken}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await this.fetchImpl(`${this.url}${path}`, {
        method,
        headers,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      throw connectionError(err, `${what} ${this.url}`);
    }
    const text = await res.text();
    if (!res.ok) throw errorFromResponse(res.status, text, res.headers.get('retry-after'), what);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new SwarmError(
        res.status,
        'invalid_response',
        'not_json',
        `${what}: the server answered with non-JSON: ${text.slice(0, 200)}`,
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success)
      throw new SwarmError(
        res.status,
        'invalid_response',
        'unexpected_shape',
        `${what}: unexpected answer: ${z.prettifyError(parsed.error)}`,
      );
    return parsed.data;
  }
}
