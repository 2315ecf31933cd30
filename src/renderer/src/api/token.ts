// Bridge token handling for browser mode: `agentjet ui` prints a URL ending in `#token=<t>`; the
// token is read once, kept in sessionStorage (so a reload still works) and stripped from the URL.

/** Parses `#token=<t>` (other `k=v` pairs may sit beside it); returns the token and the hash without it. */
export function parseTokenFromHash(hash: string): { token: string | null; rest: string } {
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  if (!body) return { token: null, rest: '' };
  const params = new URLSearchParams(body);
  const token = params.get('token');
  params.delete('token');
  const restBody = params.toString();
  return { token: token && token.length > 0 ? token : null, rest: restBody ? `#${restBody}` : '' };
}

/** Where the token lives between reloads; the browser's sessionStorage in the app, a map in tests. */
export interface TokenStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

export const TOKEN_STORAGE_KEY = 'agentjet.bridgeToken';

/** Picks the token from the hash (saving it) or from storage; `stripHash` receives the hash to keep. */
export function resolveBridgeToken(
  hash: string,
  storage: TokenStorage,
  stripHash: (rest: string) => void,
): string | null {
  const { token, rest } = parseTokenFromHash(hash);
  if (token) {
    storage.setItem(TOKEN_STORAGE_KEY, token);
    stripHash(rest);
    return token;
  }
  return storage.getItem(TOKEN_STORAGE_KEY);
}

/** `ws://host/bridge?token=…` for an http page, `wss://` for https. */
export function bridgeUrl(location: { protocol: string; host: string }, token: string): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/bridge?token=${encodeURIComponent(token)}`;
}
