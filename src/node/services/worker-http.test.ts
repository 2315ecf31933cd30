// Worker URL checks (the remote errors are tested with real servers in remote.test.ts).
import { describe, expect, it } from 'vitest';
import { normalizeWorkerUrl } from './worker-http';

describe('normalizeWorkerUrl', () => {
  it('accepts host:port and URLs, trims a trailing slash, refuses what is not an http URL', () => {
    expect(normalizeWorkerUrl('http://127.0.0.1:8321/')).toBe('http://127.0.0.1:8321');
    expect(normalizeWorkerUrl(' gpu-box:8321 ')).toBe('http://gpu-box:8321');
    expect(normalizeWorkerUrl('https://example.com/agentjet/')).toBe('https://example.com/agentjet');
    for (const bad of ['ftp://x', 'http://', 'http://h:99999', 'http://h:1/?q=1'])
      expect(() => normalizeWorkerUrl(bad), bad).toThrow(expect.objectContaining({ code: 'malformed_url' }));
  });
});
