import { describe, expect, it } from 'vitest';
import type { ClientInfo } from '../../shared/swarm-protocol';
import type { ClientStatus } from '../runner/index';
import { mergeClientRows } from './client-rows';

const local = (clientId: string, state: ClientStatus['state'], lastLogAt: number | null): ClientStatus => ({
  clientId,
  slot: 0,
  pid: state === 'running' ? 42 : null,
  state,
  restarts: 1,
  codeVersion: 'abc123abc123',
  startedAt: 1,
  lastLogAt,
  lastExit: null,
});
const remote = (clientId: string, active: boolean, lastSeenAt: number): ClientInfo => ({
  clientId,
  active,
  agreedSync: false,
  firstSeenAt: 1,
  lastSeenAt,
  openEpisodes: 1,
  counters: { claimed: 5, ended: 3, aborted: 1, expired: 0, calls: 9, completionTokens: 99, refused: 0 },
});

describe('mergeClientRows', () => {
  it('joins local clients with the worker counters and lists worker-only clients as remote', () => {
    const rows = mergeClientRows(
      [local('wb-0', 'running', 100), local('wb-1', 'backoff', null)],
      [remote('wb-0', true, 300), remote('laptop', false, 50)],
    );
    expect(rows).toEqual([
      {
        clientId: 'wb-0',
        local: true,
        status: 'running',
        pid: 42,
        codeVersion: 'abc123abc123',
        claimed: 5,
        ended: 3,
        aborted: 1,
        expired: 0,
        openEpisodes: 1,
        restarts: 1,
        lastActivityAt: 300,
      },
      {
        clientId: 'wb-1',
        local: true,
        status: 'restarting',
        pid: null,
        codeVersion: 'abc123abc123',
        claimed: 0,
        ended: 0,
        aborted: 0,
        expired: 0,
        openEpisodes: 0,
        restarts: 1,
        lastActivityAt: null,
      },
      {
        clientId: 'laptop',
        local: false,
        status: 'gone',
        pid: null,
        codeVersion: null,
        claimed: 5,
        ended: 3,
        aborted: 1,
        expired: 0,
        openEpisodes: 1,
        restarts: 0,
        lastActivityAt: 50,
      },
    ]);
  });

  it('maps every runner state', () => {
    const states: ClientStatus['state'][] = ['starting', 'running', 'stopping', 'backoff', 'crashed', 'exited'];
    expect(
      mergeClientRows(
        states.map((s) => local(s, s, null)),
        [],
      ).map((r) => r.status),
    ).toEqual(['starting', 'running', 'restarting', 'restarting', 'crashed', 'stopped']);
  });
});
