// Static files of the built renderer, as the bridge serves them: a safe path resolver (no way out
// of the root), content types, and the security headers (a CSP matching the renderer's own).
import { createReadStream, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, relative, resolve, sep, isAbsolute } from 'node:path';

/**
 * The Content-Security-Policy sent with every response. It matches the renderer's index.html meta
 * tag (the stricter of the two wins in the browser) plus what only a header can say
 * (frame-ancestors). Monaco needs inline styles and same-origin (or blob:) workers; the bridge is
 * a same-origin WebSocket.
 */
export const BRIDGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "worker-src 'self' blob:",
  "connect-src 'self' ws://127.0.0.1:* ws://localhost:*",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

export function contentTypeOf(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

/** Security headers for every bridge response. */
export function securityHeaders(): Record<string, string> {
  return {
    'Content-Security-Policy': BRIDGE_CSP,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

/**
 * A request path (`/assets/x.js?v=1`) → a file path inside `root`, or null when the path is
 * malformed or would leave the root (`..`, encoded separators, NUL, absolute, backslashes).
 * `/` maps to index.html. Pure: no file-system access.
 */
export function resolveStaticPath(root: string, urlPath: string): string | null {
  const pathname = urlPath.split(/[?#]/, 1)[0] ?? '';
  if (!pathname.startsWith('/')) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const parts = decoded.split('/').filter((p) => p !== '');
  if (parts.some((p) => p === '..' || p === '.')) return null;
  const rel = parts.length === 0 ? 'index.html' : parts.join('/');
  const base = resolve(root);
  const file = resolve(base, rel);
  const back = relative(base, file);
  if (back === '' || back.startsWith('..') || isAbsolute(back) || back.split(sep).includes('..')) return null;
  return join(base, back);
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    ...securityHeaders(),
    'Content-Type': 'text/plain; charset=utf-8',
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

/** Serves GET/HEAD requests from `root`; anything else is 405, a missing file 404. */
export function serveStatic(root: string, req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    sendText(res, 405, 'method not allowed');
    return;
  }
  const file = resolveStaticPath(root, req.url ?? '/');
  if (!file) {
    sendText(res, 400, 'bad path');
    return;
  }
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new Error('not a file');
    size = st.size;
  } catch {
    if (file === join(resolve(root), 'index.html'))
      sendText(
        res,
        503,
        'The workbench renderer is not built: run `npx agentjet ui` (it builds it) or `npm run build:web`.',
      );
    else sendText(res, 404, 'not found');
    return;
  }
  const isHtml = file.endsWith('.html');
  res.writeHead(200, {
    ...securityHeaders(),
    'Content-Type': contentTypeOf(file),
    'Content-Length': String(size),
    'Cache-Control': isHtml ? 'no-cache' : 'public, max-age=3600',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const stream = createReadStream(file);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}
