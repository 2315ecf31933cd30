// The route table: paths filled from params (URL-encoded) and queries, and one entry per path and method.
import { describe, expect, it } from 'vitest';
import { routePath, workerRoutes } from './worker-routes';

describe('worker route table', () => {
  it('fills :params (encoded) and appends the defined query fields', () => {
    expect(routePath(workerRoutes.end, { id: 'ep 1/2' })).toBe('/swarm/v1/episodes/ep%201%2F2/end');
    expect(routePath(workerRoutes.episodes, {}, { clientId: 'a&b', limit: 5, status: undefined })).toBe(
      '/swarm/v1/episodes?clientId=a%26b&limit=5',
    );
    expect(routePath(workerRoutes.status)).toBe('/swarm/v1/status');
    expect(() => routePath(workerRoutes.merged)).toThrow(/no value for :id/);
  });

  it('declares each method and path once', () => {
    const keys = Object.values(workerRoutes).map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
