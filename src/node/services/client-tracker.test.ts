// Following the worker's clients from its events: joins, leaves, episode counts, and snapshots
// that neither lose nor double-count the events that race them.
import { describe, expect, it } from 'vitest';
import type { SwarmEvent, SwarmEventBody } from '../../shared/swarm-events';
import type { ClientInfo } from '../../shared/swarm-protocol';
import { ClientTracker, foldClientEvent } from './client-tracker';

let seq = 0;
const ev = (body: SwarmEventBody, time = 1000 + seq): SwarmEvent => ({ ...body, seq: ++seq, time }) as SwarmEvent;
const started = (clientId: string, episodeId: string): SwarmEvent =>
  ev({ type: 'episode_started', episodeId, clientId, kind: 'train', weightVersion: 0 });
const ended = (clientId: string, episodeId: string): SwarmEvent =>
  ev({ type: 'episode_ended', episodeId, clientId, kind: 'train', taskId: 't', reward: 1, calls: 2, pooled: true });

describe('foldClientEvent', () => {
  it('counts claims, ends, aborts and expiries on their client and tracks liveness', () => {
    const m = new Map<string, ClientInfo>();
    expect(foldClientEvent(m, ev({ type: 'client_joined', clientId: 'a', name: 'runner' }))).toBe(true);
    foldClientEvent(m, started('a', 'e1'));
    foldClientEvent(m, started('a', 'e2'));
    foldClientEvent(m, started('b', 'e3')); // a claim registers its client
    foldClientEvent(m, ended('a', 'e1'));
    foldClientEvent(m, ev({ type: 'episode_expired', episodeId: 'e3', clientId: 'b', idleS: 9, calls: 0 }));
    foldClientEvent(
      m,
      ev({ type: 'episode_aborted', episodeId: 'e2', clientId: 'a', reason: 'client_left', calls: 0 }),
    );
    foldClientEvent(m, ev({ type: 'client_left', clientId: 'a', reason: 'left' }));
    expect(m.get('a')).toMatchObject({
      name: 'runner',
      active: false,
      openEpisodes: 0,
      counters: { claimed: 2, ended: 1, aborted: 1, expired: 0 },
    });
    expect(m.get('b')).toMatchObject({ active: true, openEpisodes: 0, counters: { claimed: 1, expired: 1 } });
    expect(foldClientEvent(m, ev({ type: 'log', level: 'info', source: 'x', message: 'y' }))).toBe(false);
  });
});

describe('ClientTracker', () => {
  it('re-applies only the events newer than a snapshot that arrives after them', () => {
    const t = new ClientTracker();
    t.event(started('a', 'e1'));
    t.beginSnapshot();
    const before = ended('a', 'e1'); // the snapshot below already includes this one
    t.event(before);
    const after = started('a', 'e2'); // and not this one
    t.event(after);
    const snapshot: ClientInfo = {
      clientId: 'a',
      active: true,
      agreedSync: false,
      firstSeenAt: 1,
      lastSeenAt: 5000,
      counters: { claimed: 1, ended: 1, aborted: 0, expired: 0, calls: 2, completionTokens: 10, refused: 3 },
      openEpisodes: 0,
    };
    t.applySnapshot([snapshot], before.seq);
    expect(t.list()).toEqual([
      { ...snapshot, counters: { ...snapshot.counters, claimed: 2 }, openEpisodes: 1, lastSeenAt: 5000 },
    ]);
    // Later events fold onto the snapshot; a failed snapshot keeps what the events said.
    t.beginSnapshot();
    t.event(ended('a', 'e2'));
    t.abortSnapshot();
    expect(t.list()[0]).toMatchObject({ openEpisodes: 0, counters: { claimed: 2, ended: 2, refused: 3 } });
  });
});
