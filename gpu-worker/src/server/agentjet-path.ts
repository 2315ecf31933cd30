// Where AgentJet's compat routes live: under `/agentjet/<join-token>` (AgentJet's clients send no
// credentials, so the path carries the join token). Paths are logged and echoed with it redacted.
export const AGENTJET_PREFIX = '/agentjet';

/** A path with the join token of an AgentJet prefix replaced, for logs and echoed errors. */
export const redactJoinToken = (path: string): string => path.replace(/^\/agentjet\/[^/?]+/, '/agentjet/<join-token>');

/**
 * An AgentJet client route (`/agentjet/<token>/<route>`, a trailing slash included; not the
 * inference routes under `/v1/`): its credential is the path's token, which the compat scope
 * checks (404 when wrong, like a route that does not exist), so the header-based early
 * authentication leaves it alone.
 */
export const isAgentJetClientPath = (path: string): boolean =>
  /^\/agentjet\/[^/?]+\/(?!v1(?:\/|$))[^/?]+\/?$/.test(path);
