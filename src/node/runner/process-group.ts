// Liveness of processes and process groups, treating zombies (dead, not yet reaped — common when
// an orphan's new parent is slow to reap) as gone. Linux reads /proc; elsewhere signal 0 decides.
import { readdirSync, readFileSync } from 'node:fs';

interface ProcStat {
  state: string;
  pgrp: number;
}

/** Parses `/proc/<pid>/stat`: fields after the parenthesised command name (which may hold spaces). */
export function parseProcStat(text: string): ProcStat | null {
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = rest[0];
  const pgrp = Number(rest[2]);
  return state && Number.isInteger(pgrp) ? { state, pgrp } : null;
}

function procStat(pid: number | string): ProcStat | null {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

function signalZeroOk(target: number): boolean {
  try {
    process.kill(target, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but is not ours.
    return err instanceof Error && 'code' in err && err.code === 'EPERM';
  }
}

/** Whether a process exists and is not a zombie. */
export function processAlive(pid: number): boolean {
  if (!signalZeroOk(pid)) return false;
  if (process.platform !== 'linux') return true;
  const stat = procStat(pid);
  return stat !== null && stat.state !== 'Z';
}

/** Whether any non-zombie process is left in process group `pgid`. */
export function groupAlive(pgid: number): boolean {
  if (!signalZeroOk(-pgid)) return false;
  if (process.platform !== 'linux') return true;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = procStat(name);
    if (stat && stat.pgrp === pgid && stat.state !== 'Z') return true;
  }
  return false;
}
