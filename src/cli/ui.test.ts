// `agentjet ui` options: standalone boolean flags, defaults, the data-dir rule, bad input.
import { describe, expect, it } from 'vitest';
import { localDefaultsOf, normalizeBooleanFlags, parseUiArgs, resolveDataDir, tuningOf } from './ui';

describe('agentjet ui options', () => {
  it('accepts --connect-local and --open without a value', () => {
    expect(normalizeBooleanFlags(['--connect-local', '--port', '0', '--open'])).toEqual([
      '--connect-local=true',
      '--port',
      '0',
      '--open=true',
    ]);
    const o = parseUiArgs(['--connect-local', '--clients', '3', '--example', 'guess-number', '--open']);
    expect(o).toMatchObject({
      connectLocal: true,
      open: true,
      clients: 3,
      example: 'guess-number',
      port: 8330,
      host: '127.0.0.1',
      model: 'builtin',
    });
  });

  it('defaults to no immediate connect and no browser', () => {
    expect(parseUiArgs([])).toMatchObject({
      connectLocal: false,
      open: false,
      port: 8330,
      clients: 2,
      example: 'calculator-agent',
    });
    expect(parseUiArgs(['--connect-local', 'false']).connectLocal).toBe(false);
  });

  it('passes training settings through as local defaults', () => {
    const o = parseUiArgs(['--batch', '2', '--group-size', '2', '--max-tokens', '64', '--strategy', 'C1']);
    expect(localDefaultsOf(o)).toEqual({ batch: 2, groupSize: 2, maxTokens: 64, strategy: 'C1' });
    expect(localDefaultsOf(parseUiArgs([]))).toEqual({});
    expect(tuningOf(parseUiArgs(['--threads', '1', '--eval-episodes', '0']))).toEqual({
      workerConfig: { threads: 1 },
      evalEpisodes: 0,
    });
    expect(tuningOf(parseUiArgs([]))).toEqual({});
    expect(tuningOf(parseUiArgs(['--relabel-every', '10']))).toEqual({ relabel: { every: 10, perRound: 32 } });
    expect(tuningOf(parseUiArgs(['--relabel-every', '5', '--labels-per-round', '8'])).relabel).toEqual({
      every: 5,
      perRound: 8,
    });
  });

  it('refuses unknown flags and bad values with the help text', () => {
    expect(() => parseUiArgs(['--prot', '1'])).toThrow(/agentjet ui \[options\]/);
    expect(() => parseUiArgs(['--port', '70000'])).toThrow(/port/);
    expect(() => parseUiArgs(['--clients', 'many'])).toThrow(/clients/);
    expect(() => parseUiArgs(['stray'])).toThrow('unexpected argument: stray');
  });

  it('resolves the data dir: flag, then AGENTJET_HOME, then ~/.agentjet', () => {
    expect(resolveDataDir('/x/y', { AGENTJET_HOME: '/h' }, '/home/u')).toBe('/x/y');
    expect(resolveDataDir(undefined, { AGENTJET_HOME: '/h' }, '/home/u')).toBe('/h');
    expect(resolveDataDir(undefined, {}, '/home/u')).toBe('/home/u/.agentjet');
  });
});
