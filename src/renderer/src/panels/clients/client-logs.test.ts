import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../../../shared/workbench-api';
import { clientRow } from '../../test-fixtures';
import { clientLogLines, sortClients } from './client-logs';

const line = (t: number, clientId = 'c1', text = `l${t}`): LogLine => ({
  t,
  source: { kind: 'client', clientId },
  stream: 'stdout',
  line: text,
});

describe('clientLogLines', () => {
  it('appends newer live lines of the same source only', () => {
    const out = clientLogLines([line(1), line(2)], [line(2), line(3), line(4, 'c2'), line(5)], {
      kind: 'client',
      clientId: 'c1',
    });
    expect(out.map((l) => l.t)).toEqual([1, 2, 3, 5]);
  });
  it('keeps the worker and a client named "worker" apart', () => {
    const worker: LogLine = { t: 9, source: { kind: 'worker' }, stream: 'stdout', line: 'w' };
    expect(clientLogLines([], [worker, line(10, 'worker')], { kind: 'worker' }).map((l) => l.line)).toEqual(['w']);
  });
  it('works with nothing fetched yet and caps the result', () => {
    expect(clientLogLines([], [line(1), line(2)], { kind: 'client', clientId: 'c1' }, 1).map((l) => l.t)).toEqual([2]);
  });
});

describe('sortClients', () => {
  it('puts local and live clients first', () => {
    const rows = [
      clientRow('z', { local: false, status: 'connected' }),
      clientRow('b', { status: 'crashed' }),
      clientRow('a'),
      clientRow('y', { local: false, status: 'gone' }),
    ];
    expect(sortClients(rows).map((r) => r.clientId)).toEqual(['a', 'b', 'z', 'y']);
  });
});
