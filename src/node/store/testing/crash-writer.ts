// Test support for store-durability.test.ts: a process that commits one ingest batch, then dies
// by SIGKILL in the middle of a second one (never closing the store, never ending the run).
// Usage: node --import tsx crash-writer.ts <db path>
import { openStore } from '../store';
import { episodeInput, newRun, stepPoint } from '../test-support';

const path = process.argv[2];
if (path === undefined) throw new Error('usage: crash-writer.ts <db path>');
const store = openStore(path);
store.createRun(newRun('crash'));
store.transaction(() => {
  for (let s = 1; s <= 3; s++) store.putStep('crash', stepPoint(s));
  for (let i = 0; i < 50; i++) store.putEpisode('crash', episodeInput(`e${i}`, { createdAt: 1000 + i }));
  store.appendLog('crash', { t: 1, source: { kind: 'worker' }, stream: 'stdout', line: 'committed' });
});
console.log('committed');
store.transaction(() => {
  store.putStep('crash', stepPoint(4));
  store.putEpisode('crash', episodeInput('uncommitted'));
  process.kill(process.pid, 'SIGKILL');
  // SIGKILL lands before this transaction could commit.
  const until = Date.now() + 10_000;
  while (Date.now() < until);
});
console.log('not reached');
