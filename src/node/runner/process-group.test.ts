// Tests for process liveness: /proc stat parsing, zombies counted as gone, real group checks.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { groupAlive, parseProcStat, processAlive } from './process-group';

describe('process-group', () => {
  it('parses /proc/<pid>/stat even when the command name has spaces and parentheses', () => {
    expect(parseProcStat('123 (my (weird) cmd) Z 1 456 456 0 -1')).toEqual({ state: 'Z', pgrp: 456 });
    expect(parseProcStat('garbage')).toBeNull();
  });

  it('sees a live detached group and its end', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)'], {
      detached: true,
      stdio: 'ignore',
    });
    await new Promise((resolve) => child.once('spawn', resolve));
    const pid = child.pid!;
    expect(processAlive(pid)).toBe(true);
    expect(groupAlive(pid)).toBe(true);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-pid, 'SIGKILL');
    await exited;
    expect(processAlive(pid)).toBe(false);
    expect(groupAlive(pid)).toBe(false);
  });
});
