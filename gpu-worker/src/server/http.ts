// HTTP plumbing shared by every route: the strict JSON body parser (UTF-8 checked, prototype keys
// refused), body validation against the shared zod schemas, and the one error handler that turns
// anything thrown into `{error: {type, code, message}}` with a 4xx for client mistakes — router
// errors (a malformed URL, a path segment too long) included; and the signal of a client that hung up.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { checkBodyDepth } from '../../../src/shared/request-limits';
import { ErrorTypes } from '../../../src/shared/swarm-protocol';
import { badRequest, SwarmError } from '../errors';
import { redactJoinToken } from './agentjet-path';

/** A signal that fires when the client closes the connection before its answer was written. */
export function clientClosedSignal(reply: FastifyReply): AbortSignal {
  const closed = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) closed.abort();
  });
  return closed.signal;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses a JSON body: broken UTF-8, bad JSON, nesting deeper than the request limit (checked before
 * parsing, naming the field) and `__proto__` keys (prototype pollution) are 400s.
 */
export function parseJsonBody(buf: Buffer): unknown {
  if (buf.length === 0) return undefined;
  let text: string;
  try {
    text = utf8.decode(buf);
  } catch {
    throw badRequest('invalid_utf8', 'the request body is not valid UTF-8');
  }
  checkBodyDepth(text);
  try {
    // A key can spell __proto__ only literally or with \u escapes; without either the reviver (a
    // call per value, most of the parse time of a large body) cannot find one.
    if (!text.includes('__proto__') && !text.includes('\\u')) return JSON.parse(text);
    return JSON.parse(text, (key, value: unknown) => {
      if (key === '__proto__') throw new SyntaxError('the key "__proto__" is not allowed');
      return value;
    });
  } catch (err) {
    throw badRequest(
      'invalid_json',
      `the request body is not valid JSON: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** Validates `body` (undefined counts as `{}` when `emptyOk`) or throws a 400 naming the fields. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, emptyOk = false): z.infer<S> {
  const parsed = schema.safeParse(body === undefined && emptyOk ? {} : body);
  if (parsed.success) return parsed.data;
  const message = z.prettifyError(parsed.error);
  throw badRequest('invalid_request', message.length > 1500 ? `${message.slice(0, 1500)}…` : message);
}

export function sendError(reply: FastifyReply, err: SwarmError): FastifyReply {
  if (err.retryAfterS !== undefined) void reply.header('retry-after', String(err.retryAfterS));
  return reply.status(err.status).send(err.toBody());
}

const fastifyCodes: Record<string, [number, string, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'body_too_large', 'the request body is larger than this server accepts'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported_media_type', 'send JSON with Content-Type: application/json'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [
    400,
    'invalid_content_length',
    'the Content-Length header does not match the body',
  ],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'empty_body', 'the JSON body is empty'],
};

/**
 * The longest path segment (an id, percent-encoded) the router accepts; longer ones get a 414.
 * Covers the longest id a client may register (IdSchema: 200 UTF-16 units, at most 9 encoded
 * characters each), so no registered id is ever refused by the router.
 */
export const MAX_PARAM_LENGTH = 2048;

const routerCodes: Record<string, [number, string, string]> = {
  FST_ERR_BAD_URL: [400, 'bad_url', 'the request URL is not valid (malformed percent-encoding?)'],
  FST_ERR_MAX_PARAM_LENGTH: [
    414,
    'uri_too_long',
    `a path segment of the URL is longer than ${MAX_PARAM_LENGTH} characters`,
  ],
  FST_ERR_ASYNC_CONSTRAINT: [400, 'bad_request', 'the request could not be routed'],
};

/** Fastify's `frameworkErrors`: what the router refuses, in the documented error shape. */
export function frameworkErrorHandler(err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  const [status, code, message] = routerCodes[err.code] ?? [400, 'bad_request', 'the request could not be routed'];
  void sendError(reply, new SwarmError(status, ErrorTypes.invalid, code, message));
}

/** Installs the JSON parser, the error handler and the 404 handler. */
export function installHttpBasics(app: FastifyInstance, bodyLimit: number, log: (line: string) => void): void {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  app.setErrorHandler((err: FastifyError | SwarmError | Error, req: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof SwarmError) return sendError(reply, err);
    const code = (err as FastifyError).code;
    const known = code ? fastifyCodes[code] : undefined;
    if (known) return sendError(reply, new SwarmError(known[0], ErrorTypes.invalid, known[1], known[2]));
    const status = (err as FastifyError).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return sendError(
        reply,
        new SwarmError(status, ErrorTypes.invalid, (code ?? 'bad_request').toLowerCase(), err.message),
      );
    }
    log(
      `[error] http: ${req.method} ${redactJoinToken(req.url.split('?')[0]!)} failed: ` +
        `${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
    );
    return sendError(reply, new SwarmError(500, ErrorTypes.internal, 'internal', `internal error: ${err.message}`));
  });
  app.setNotFoundHandler((req, reply) =>
    sendError(
      reply,
      new SwarmError(
        404,
        ErrorTypes.notFound,
        'route_not_found',
        `no route ${req.method} ${redactJoinToken(req.url.split('?')[0]!)}`,
      ),
    ),
  );
}
