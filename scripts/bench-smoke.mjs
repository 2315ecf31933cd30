#!/usr/bin/env node
// Runs every benchmark at its `--smoke` settings (tiny sizes, seconds each), one after another, so a
// benchmark that rotted fails CI instead of the next person who needs its figures. A bench fails
// this script when it exits non-zero, runs past its time limit, or does not print a JSON summary
// naming itself as its last line. Usage: node scripts/bench-smoke.mjs [name ...] (default: all of
// them, as `bench/run.ts --list` names them). Prints each bench's wall time and the total.
import { spawn, spawnSync } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const LIMIT_S = Number(process.env.AGENTJET_BENCH_SMOKE_LIMIT_S ?? 600); // per bench: catches a hang, not a slow machine
const runTs = ['--import', 'tsx', 'bench/run.ts'];

function listBenches() {
  const res = spawnSync(process.execPath, [...runTs, '--list'], { cwd: root, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`bench/run.ts --list failed (exit ${res.status}): ${res.stderr}`);
  const names = JSON.parse(res.stdout.trim().split('\n').at(-1) ?? '[]');
  if (!Array.isArray(names) || names.length === 0 || names.some((n) => typeof n !== 'string'))
    throw new Error(`bench/run.ts --list printed no bench names: ${res.stdout}`);
  return names;
}

/** Runs one bench with --smoke; resolves { ok, seconds, why, tail, summary }. */
function smoke(name) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [...runTs, name, '--smoke'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '0' },
      detached: true, // its own process group: a time-out kills the engines and clients it started too
    });
    let out = '';
    let log = '';
    child.stdout.on('data', (c) => ((out += c), (log += c)));
    child.stderr.on('data', (c) => (log += c));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, LIMIT_S * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const seconds = (performance.now() - t0) / 1000;
      const tail = log.split('\n').slice(-25).join('\n');
      const last = out.trim().split('\n').at(-1) ?? '';
      let summary;
      try {
        summary = JSON.parse(last);
      } catch {
        summary = undefined;
      }
      const why = timedOut
        ? `ran past ${LIMIT_S} s`
        : code !== 0
          ? `exited with ${code ?? signal}`
          : summary?.bench !== name || summary?.smoke !== true
            ? `its last line is not its JSON summary: ${last.slice(0, 200)}`
            : undefined;
      resolve({ ok: why === undefined, seconds, why, tail, summary });
    });
  });
}

const names = process.argv.length > 2 ? process.argv.slice(2) : listBenches();
const t0 = performance.now();
const failed = [];
for (const name of names) {
  const r = await smoke(name);
  console.log(`bench smoke ${name.padEnd(12)} ${r.ok ? 'ok    ' : 'FAILED'} ${r.seconds.toFixed(1).padStart(6)} s`);
  if (!r.ok) {
    failed.push(name);
    console.error(`--- ${name}: ${r.why}; its last lines:\n${r.tail}\n---`);
  }
}
const total = (performance.now() - t0) / 1000;
console.log(`bench smoke: ${names.length - failed.length}/${names.length} passed in ${total.toFixed(1)} s`);
if (failed.length > 0) {
  console.error(`bench smoke FAILED: ${failed.join(', ')}`);
  process.exit(1);
}
