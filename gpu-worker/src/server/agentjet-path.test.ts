import { describe, expect, it } from 'vitest';
import { isAgentJetClientPath, redactJoinToken } from './agentjet-path';

describe('AgentJet paths', () => {
  it('knows the client routes (credential in the path) from the inference routes under /v1', () => {
    expect(isAgentJetClientPath('/agentjet/tok/claim_episode')).toBe(true);
    expect(isAgentJetClientPath('/agentjet/tok/get_engine_status')).toBe(true);
    expect(isAgentJetClientPath('/agentjet/tok/end_episode/')).toBe(true); // a 404 from the router, not a 401
    expect(isAgentJetClientPath('/agentjet/tok/v1/')).toBe(false);
    expect(isAgentJetClientPath('/agentjet/tok/v1/chat/completions')).toBe(false);
    expect(isAgentJetClientPath('/agentjet/tok/v1')).toBe(false);
    expect(isAgentJetClientPath('/agentjet/tok/a/b')).toBe(false);
    expect(isAgentJetClientPath('/swarm/v1/status')).toBe(false);
  });

  it('redacts the token of logged paths', () => {
    expect(redactJoinToken('/agentjet/secret-token/claim_episode')).toBe('/agentjet/<join-token>/claim_episode');
    expect(redactJoinToken('/v1/models')).toBe('/v1/models');
  });
});
