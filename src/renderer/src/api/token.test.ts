import { describe, expect, it } from 'vitest';
import { bridgeUrl, parseTokenFromHash, resolveBridgeToken, TOKEN_STORAGE_KEY } from './token';

class MapStorage {
  readonly map = new Map<string, string>();
  getItem(k: string): string | null {
    return this.map.get(k) ?? null;
  }
  setItem(k: string, v: string): void {
    this.map.set(k, v);
  }
}

describe('parseTokenFromHash', () => {
  it('reads the token and keeps other hash params', () => {
    expect(parseTokenFromHash('#token=abc123')).toEqual({ token: 'abc123', rest: '' });
    expect(parseTokenFromHash('#panel=runs&token=a%2Bb')).toEqual({ token: 'a+b', rest: '#panel=runs' });
  });
  it('returns null without a token or with an empty one', () => {
    expect(parseTokenFromHash('')).toEqual({ token: null, rest: '' });
    expect(parseTokenFromHash('#')).toEqual({ token: null, rest: '' });
    expect(parseTokenFromHash('#token=')).toEqual({ token: null, rest: '' });
    expect(parseTokenFromHash('#x=1').token).toBeNull();
  });
});

describe('resolveBridgeToken', () => {
  it('stores a hash token and strips it from the URL', () => {
    const storage = new MapStorage();
    const stripped: string[] = [];
    expect(resolveBridgeToken('#token=t1', storage, (r) => stripped.push(r))).toBe('t1');
    expect(storage.map.get(TOKEN_STORAGE_KEY)).toBe('t1');
    expect(stripped).toEqual(['']);
  });
  it('falls back to the stored token after the hash was stripped (reload)', () => {
    const storage = new MapStorage();
    storage.setItem(TOKEN_STORAGE_KEY, 'saved');
    const stripped: string[] = [];
    expect(resolveBridgeToken('', storage, (r) => stripped.push(r))).toBe('saved');
    expect(stripped).toEqual([]);
  });
  it('prefers a new hash token over a stored one', () => {
    const storage = new MapStorage();
    storage.setItem(TOKEN_STORAGE_KEY, 'old');
    expect(resolveBridgeToken('#token=new', storage, () => undefined)).toBe('new');
    expect(storage.map.get(TOKEN_STORAGE_KEY)).toBe('new');
  });
  it('returns null with nothing anywhere', () => {
    expect(resolveBridgeToken('', new MapStorage(), () => undefined)).toBeNull();
  });
});

describe('bridgeUrl', () => {
  it('uses ws for http and wss for https, encoding the token', () => {
    expect(bridgeUrl({ protocol: 'http:', host: '127.0.0.1:5173' }, 'a b')).toBe(
      'ws://127.0.0.1:5173/bridge?token=a%20b',
    );
    expect(bridgeUrl({ protocol: 'https:', host: 'x.org' }, 't')).toBe('wss://x.org/bridge?token=t');
  });
});
