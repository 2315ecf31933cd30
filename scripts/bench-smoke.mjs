#!/usr/bin/env node
// Runs every benchmark at its `--smoke` settings (tiny sizes, seconds each), one after another, so a
// benchmark that rotted fails CI instead of the next person who needs its figures. A bench fails
// this script when it exits non-zero, runs past its time limit, or does not print a JSON summary
// naming itself as its last line. Usage: node scripts/bench-smoke.mjs [name ...] (default: all of
// them, as `bench/run.ts --list` names them). Prints each bench's wall time and the total. Each bench
// has its own limit (`smokeLimitS` in bench/run.ts, ~3× its time on a quiet 2-core CPU: catches a
// hang, not a slow machine); AGENTJET_BENCH_SMOKE_SLACK=F multiplies them all (a loaded machine).
import { spawn, spawnSync } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const SLACK = Number(process.env.AGENTJET_BENCH_SMOKE_SLACK ?? 1);
if (!(SLACK > 0))
  throw new Error(`AGENTJET_BENCH_SMOKE_SLACK=${process.env.AGENTJET_BENCH_SMOKE_SLACK}: a positive factor`);
const runTs = ['--import', 'tsx', 'bench/run.ts'];

/** [{ name, smokeLimitS }] of every bench, from `bench/run.ts --list`. */
function listBenches() {
  const res = spawnSync(process.execPath, [...runTs, '--list'], { cwd: root, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`bench/run.ts --list failed (exit ${res.status}): ${res.stderr}`);
  const list = JSON.parse(res.stdout.trim().split('\n').at(-1) ?? '[]');
  const valid = (b) => typeof b?.name === 'string' && Number.isFinite(b?.smokeLimitS) && b.smokeLimitS > 0;
  if (!Array.isArray(list) || list.length === 0 || !list.every(valid))
    throw new Error(`bench/run.ts --list printed no benches with their smoke limits: ${res.stdout}`);
  return list;
}

/** Runs one bench with --smoke; resolves { ok, seconds, why, tail, summary }. */
function smoke(name, limitS) {
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
    }, limitS * 1000);
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
        ? `ran past its limit of ${limitS} s (smokeLimitS in bench/run.ts × AGENTJET_BENCH_SMOKE_SLACK ${SLACK})`
        : code !== 0
          ? `exited with ${code ?? signal}`
          : summary?.bench !== name || summary?.smoke !== true
            ? `its last line is not its JSON summary: ${last.slice(0, 200)}`
            : undefined;
      resolve({ ok: why === undefined, seconds, why, tail, summary });
    });
  });
}

const all = listBenches();
const asked = process.argv.slice(2);
const unknown = asked.filter((n) => !all.some((b) => b.name === n));
if (unknown.length > 0) {
  console.error(`bench smoke: no bench named ${unknown.join(', ')}; the benches: ${all.map((b) => b.name).join(', ')}`);
  process.exit(2);
}
const benches = asked.length > 0 ? all.filter((b) => asked.includes(b.name)) : all;
const t0 = performance.now();
const failed = [];
for (const { name, smokeLimitS } of benches) {
  const r = await smoke(name, smokeLimitS * SLACK);
  console.log(`bench smoke ${name.padEnd(12)} ${r.ok ? 'ok    ' : 'FAILED'} ${r.seconds.toFixed(1).padStart(6)} s`);
  if (!r.ok) {
    failed.push(name);
    console.error(
      `--- bench smoke: ${name} FAILED: ${r.why}. Rerun it alone: npx tsx bench/run.ts ${name} --smoke. ` +
        `Its last lines:\n${r.tail}\n---`,
    );
  }
}
const total = (performance.now() - t0) / 1000;
console.log(`bench smoke: ${benches.length - failed.length}/${benches.length} passed in ${total.toFixed(1)} s`);
if (failed.length > 0) {
  console.error(`bench smoke FAILED: ${failed.join(', ')} (see each one's lines above)`);
  process.exit(1);
}
