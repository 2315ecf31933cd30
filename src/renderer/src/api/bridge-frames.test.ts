import { describe, expect, it } from 'vitest';
import { decodeFrame, encodeCall } from './bridge-frames';

describe('bridge frames', () => {
  it('encodes a call frame', () => {
    expect(JSON.parse(encodeCall(7, 'session', {}))).toEqual({ type: 'call', id: 7, method: 'session', params: {} });
  });
  it('decodes result, error and event frames', () => {
    expect(decodeFrame('{"type":"result","id":3,"result":{"a":1}}')).toEqual({
      kind: 'result',
      id: 3,
      result: { a: 1 },
    });
    expect(decodeFrame('{"type":"error","id":4,"error":{"type":"workbench","code":"x","message":"boom"}}')).toEqual({
      kind: 'error',
      id: 4,
      error: { type: 'workbench', code: 'x', message: 'boom' },
    });
    expect(
      decodeFrame('{"type":"error","id":null,"error":{"type":"invalid_request","code":"bad_frame","message":"m"}}'),
    ).toMatchObject({
      kind: 'error',
      id: null,
    });
    expect(decodeFrame('{"type":"event","event":{"type":"session","session":null}}')).toEqual({
      kind: 'event',
      event: { type: 'session', session: null },
    });
  });
  it('turns garbage into a bad frame with a reason', () => {
    expect(decodeFrame('not json')).toEqual({ kind: 'bad', reason: 'bridge sent a frame that is not JSON' });
    const f = decodeFrame('{"type":"result","id":-1}');
    expect(f.kind).toBe('bad');
    expect(decodeFrame('{"type":"nope"}').kind).toBe('bad');
  });
});
