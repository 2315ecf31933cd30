import { describe, expect, it } from 'vitest';
import { episodePageSql, episodeQuery, likeSubstring } from './episode-query';

describe('episodeQuery', () => {
  it('binds every filter value as a parameter, run first', () => {
    const q = episodeQuery(
      7,
      { clientId: "c'1", codeVersion: 'v1', kind: 'eval', status: 'ended', task: 'add', minReward: 0.5, maxReward: 1 },
      'newest',
    );
    expect(q.where).toBe(
      "WHERE run = ? AND client_id = ? AND code_version = ? AND kind = ? AND status = ? AND task_id LIKE ? ESCAPE '\\' AND reward >= ? AND reward <= ?",
    );
    expect(q.params).toEqual([7, "c'1", 'v1', 'eval', 'ended', '%add%', 0.5, 1]);
    expect(q.where).not.toContain("c'1");
  });

  it('ignores an empty task filter', () => {
    expect(episodeQuery(1, { task: '' }, 'oldest')).toEqual({
      where: 'WHERE run = ?',
      params: [1],
      orderBy: 'ORDER BY created_at ASC, id ASC',
    });
  });

  it('orders reward_asc with unrewarded rows last, unless a reward range excludes them', () => {
    expect(episodeQuery(1, {}, 'reward_asc').orderBy).toBe(
      'ORDER BY reward IS NULL, reward ASC, created_at ASC, id ASC',
    );
    expect(episodeQuery(1, { minReward: 0 }, 'reward_asc').orderBy).toBe('ORDER BY reward ASC, created_at ASC, id ASC');
    expect(episodeQuery(1, {}, 'reward_desc').orderBy).toBe('ORDER BY reward DESC, created_at DESC, id DESC');
  });

  it('escapes LIKE wildcards and the escape character', () => {
    expect(likeSubstring('50%_a\\b')).toBe('%50\\%\\_a\\\\b%');
  });

  it('builds count and page statements over the same filter', () => {
    const q = episodePageSql(3, { kind: 'train' }, 'newest');
    expect(q.count).toBe('SELECT COUNT(*) FROM episodes WHERE run = ? AND kind = ?');
    expect(q.page).toMatch(
      /^SELECT episode_id, .* FROM episodes WHERE run = \? AND kind = \? ORDER BY created_at DESC, id DESC LIMIT \? OFFSET \?$/,
    );
    expect(q.params).toEqual([3, 'train']);
  });
});
