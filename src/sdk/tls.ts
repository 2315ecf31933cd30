// Trusting an https worker's certificate from Node: a fetch that accepts a CA bundle or the worker's
// own self-signed certificate (PEM) on top of the system's roots, for the SwarmClient and for any
// OpenAI-compatible library that takes a `fetch` (e.g. `new OpenAI({ fetch: fetchTrusting(ca) })`).
// AGENTJET_CA_FILE names the file the way the workbench's client runner sets it. Built on undici's
// own fetch and Agent (the implementation behind Node's global fetch), so the CA applies to every
// connection of that fetch and nothing else in the process. undici is imported at the first call:
// it is a large package, and every client process that merely imports the SDK would otherwise load it
// at start (most never use a CA; the hot-swap time counts the start, bench/hotswap.ts).
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import type { Agent, fetch as UndiciFetch, RequestInit as UndiciRequestInit } from 'undici';

/** A fetch that trusts the system's roots and `ca` (PEM: a CA bundle or a worker's self-signed certificate). */
export function fetchTrusting(ca: string | Buffer): typeof fetch {
  const pem = ca.toString();
  let undici: Promise<{ fetch: typeof UndiciFetch; dispatcher: Agent }> | undefined;
  const trusting = async (input: string | URL, init?: UndiciRequestInit): ReturnType<typeof UndiciFetch> => {
    undici ??= import('undici').then((u) => ({
      fetch: u.fetch,
      dispatcher: new u.Agent({ connect: { ca: [...rootCertificates, pem] } }),
    }));
    const { fetch: undiciFetch, dispatcher } = await undici;
    return undiciFetch(input, { ...init, dispatcher });
  };
  // undici's types are a newer copy of those @types/node declares for the global fetch (only stream
  // generics differ); the function is the one behind the global fetch. Callers pass a URL string or URL.
  return trusting as typeof fetch;
}

/** The PEM of AGENTJET_CA_FILE, or undefined when it is unset; a clear error when it cannot be read. */
export function caFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const file = env['AGENTJET_CA_FILE'];
  if (!file) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`AGENTJET_CA_FILE ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
