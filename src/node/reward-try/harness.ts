// The programs that run reward code for `reward try` inside a child process (runner.ts): one for
// JavaScript bundles (the reward.ts compiled by esbuild exactly as the client's code is) and one
// for Python reward files. Both read `{i, task, messages}` lines on stdin, call the reward, and
// write one line per episode on fd 3 — `{i, reward, success?}` or `{i, error}` — so what the
// reward code prints on stdout/stderr never mixes with the results (the runner bounds it).
// First line on fd 3: `{ready: name}` or `{fatal: why}`. Each result carries `printed`: the bytes the
// reward wrote to stdout/stderr for that episode (counted, and dropped past MAX_OUTPUT).

/** esbuild entry source: `REWARD_PATH`, `EXPORT_NAME` (JSON strings) and `MAX_OUTPUT` are substituted. */
export const NODE_HARNESS = `
import * as mod from REWARD_PATH;
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
const out = createWriteStream(null, { fd: 3 });
const send = (o) => out.write(JSON.stringify(o) + '\\n');
let printed = 0;
for (const s of [process.stdout, process.stderr]) {
  const write = s.write.bind(s);
  s.write = (chunk, ...rest) => {
    printed += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    return printed > MAX_OUTPUT ? true : write(chunk, ...rest);
  };
}
const wanted = EXPORT_NAME;
const fns = Object.entries(mod).filter(([, v]) => typeof v === 'function');
const scores = fns.filter(([k]) => /Score$/.test(k));
const pick = wanted ? fns.find(([k]) => k === wanted)
  : fns.find(([k]) => k === 'reward') ?? (scores.length === 1 ? scores[0] : undefined);
const describe = (v) => {
  try {
    const s = JSON.stringify(v);
    return s === undefined ? String(v) : s.slice(0, 120);
  } catch {
    return String(v).slice(0, 120);
  }
};
const check = (r) => {
  const value = typeof r === 'number' ? r : r && typeof r === 'object' ? r.reward : r;
  const shown = value === undefined ? describe(r) : typeof value + ' ' + describe(value);
  if (typeof value !== 'number') return { error: 'returned ' + shown + ', not a number' };
  if (!Number.isFinite(value)) return { error: 'returned ' + String(value) + ', not a finite number' };
  const success = r && typeof r === 'object' && typeof r.success === 'boolean' ? r.success : undefined;
  return success === undefined ? { reward: value } : { reward: value, success };
};
if (!pick) {
  send({ fatal: wanted ? 'the reward file exports no function ' + wanted
    : 'the reward file exports no reward(task, messages) (nor exactly one *Score function); name one with --export' });
} else {
  const fn = pick[1];
  send({ ready: pick[0] });
  const rl = createInterface({ input: process.stdin });
  for await (const line of rl) {
    if (!line.trim()) continue;
    const { i, task, messages } = JSON.parse(line);
    printed = 0;
    try {
      const r = check(await fn(task, messages));
      send({ i, ...r, printed });
    } catch (err) {
      const trace = String(err && err.stack ? err.stack : err).split('\\n').slice(0, 3).join(' | ');
      send({ i, error: 'threw: ' + trace.slice(0, 500), printed });
    }
  }
}
out.end();
`;

/** Python: argv[1] the reward file, argv[2] the function name ('' = reward, or the one *_score), argv[3] its folder. */
export const PYTHON_HARNESS = `
import importlib.util, json, math, os, sys, traceback
out = os.fdopen(3, 'w', buffering=1)
class Sink:
    n = 0
    def write(self, t):
        Sink.n += len(t.encode('utf-8', 'replace')) if isinstance(t, str) else len(t)
        return len(t)
    def flush(self): pass
sys.stdout = sys.stderr = Sink()
def send(o): out.write(json.dumps(o) + '\\n'); out.flush()
sys.path.insert(0, sys.argv[3])
spec = importlib.util.spec_from_file_location('agentjet_reward', sys.argv[1])
try:
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
except BaseException as e:
    send({'fatal': 'loading the reward file failed: ' + repr(e)[:500]}); sys.exit(0)
fns = {k: v for k, v in vars(mod).items() if callable(v) and not k.startswith('_')}
want = sys.argv[2]
scores = [k for k in fns if k.endswith('_score') or k.endswith('Score')]
name = want or ('reward' if 'reward' in fns else (scores[0] if len(scores) == 1 else None))
if name is None or name not in fns:
    wanted = want or 'reward(task, messages)'
    send({'fatal': 'the reward file defines no function ' + wanted + '; name one with --export'})
    sys.exit(0)
send({'ready': name})
def check(r):
    v = r.get('reward') if isinstance(r, dict) else r
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return {'error': 'returned ' + type(v).__name__ + ' ' + repr(v)[:120] + ', not a number'}
    if not math.isfinite(v): return {'error': 'returned ' + repr(v) + ', not a finite number'}
    s = r.get('success') if isinstance(r, dict) else None
    return {'reward': float(v), 'success': s} if isinstance(s, bool) else {'reward': float(v)}
for line in sys.stdin:
    if not line.strip(): continue
    m = json.loads(line)
    Sink.n = 0
    try: r = check(fns[name](m['task'], m['messages']))
    except BaseException as e:
        r = {'error': 'threw: ' + ''.join(traceback.format_exception_only(type(e), e)).strip()[:500]}
    send({'i': m['i'], **r, 'printed': Sink.n})
`;
