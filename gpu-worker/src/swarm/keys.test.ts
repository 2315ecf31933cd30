import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bearerToken,
  explicitTokenProblem,
  isEpisodeId,
  newEpisodeId,
  signEpisodeKey,
  TokenMatcher,
  verifyEpisodeKey,
} from './keys';

describe('episode keys', () => {
  const secret = randomBytes(32);

  it('verifies its own signature and names the episode', () => {
    const id = newEpisodeId();
    expect(isEpisodeId(id)).toBe(true);
    expect(verifyEpisodeKey(secret, signEpisodeKey(secret, id))).toEqual({ ok: true, episodeId: id });
  });

  it('refuses a key signed with another secret, or for another episode', () => {
    const id = newEpisodeId();
    expect(verifyEpisodeKey(randomBytes(32), signEpisodeKey(secret, id))).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    const other = newEpisodeId();
    const [v, , sig] = signEpisodeKey(secret, id).split('.');
    expect(verifyEpisodeKey(secret, `${v}.${other}.${sig}`)).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('refuses any mutation of a valid key', () => {
    const key = signEpisodeKey(secret, newEpisodeId());
    fc.assert(
      fc.property(fc.nat({ max: key.length - 1 }), fc.string({ minLength: 1, maxLength: 1 }), (i, c) => {
        fc.pre(key[i] !== c);
        const forged = key.slice(0, i) + c + key.slice(i + 1);
        expect(verifyEpisodeKey(secret, forged).ok).toBe(false);
      }),
    );
  });

  it('calls garbage malformed, never throws', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(verifyEpisodeKey(secret, s).ok).toBe(false);
      }),
    );
    expect(verifyEpisodeKey(secret, 'ajk1.ep_123.')).toEqual({ ok: false, reason: 'malformed' });
  });
});

describe('TokenMatcher', () => {
  it('tells admin from join and refuses anything else', () => {
    const m = new TokenMatcher({ admin: 'adm_secret', join: 'join_secret' });
    expect(m.match('adm_secret')).toBe('admin');
    expect(m.match('join_secret')).toBe('join');
    expect(m.match('adm_secre')).toBeNull();
    expect(m.match('')).toBeNull();
  });

  it('reads bearer headers strictly', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc ')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeNull();
    expect(bearerToken('Bearer a b')).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
  });
});

describe('explicit tokens', () => {
  it('refuses short, unprintable and equal admin/join tokens, naming where they came from', () => {
    const long = 'a-long-enough-token-123';
    expect(explicitTokenProblem({ admin: long, join: `${long}-join` })).toBeNull();
    expect(explicitTokenProblem({ admin: 'short' }, { admin: 'AGENTJET_ADMIN_TOKEN' })).toMatch(
      /AGENTJET_ADMIN_TOKEN is 5 characters long; use at least 16/,
    );
    expect(explicitTokenProblem({ join: 'has a space in it, long' }, { join: '--join-token' })).toMatch(
      /--join-token must be printable ASCII without spaces/,
    );
    expect(
      explicitTokenProblem({ admin: long, join: long }, { admin: '--admin-token', join: 'AGENTJET_JOIN_TOKEN' }),
    ).toMatch(/--admin-token and AGENTJET_JOIN_TOKEN are the same/);
  });
});
