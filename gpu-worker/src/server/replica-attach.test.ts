// The replica attach path end to end without Python: a real HTTP server with the attach endpoint and
// RemoteReplicas (over a recording fake of the router), real `agentjet replica` hosts
// (startReplicaHost) whose engines are the fake engine program over real stdio, real sockets between
// them. A replica attaches, is loaded with its host's model folder and threads, serves only replica
// methods, cancels, dies with its host and comes back under its name; forged tokens, another model, a
// worker without --remote-replicas and malformed frames are refused with what went wrong.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket, { WebSocketServer } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_FILES_HEADER, ReplicaClose } from '../../../src/shared/replica-attach';
import { Admission } from '../engine/admission';
import { BusyClock } from '../engine/busy-clock';
import type { EngineHost } from '../engine/engine-host';
import { formatModelFiles, MODEL_IDENTITY_FILES, modelFiles } from '../engine/replicas/model-files';
import { RemoteReplicas, type RemoteRouter } from '../engine/replicas/remote-replicas';
import { startReplicaHost, type ReplicaHost, type ReplicaHostOptions } from '../engine/replicas/replica-host';
import type { Replica } from '../engine/replicas/replica-router';
import { BUILTIN_MODEL_DIR } from '../resources';
import { TokenMatcher } from '../swarm/keys';
import { fakeEnginePython, UNLOADABLE } from '../testing/fake-engine-program';
import { until } from '../testing/swarm-play';
import { TEST_TOKENS } from '../testing/workers';
import { REPLICA_ATTACH_PATH, ReplicaAttachServer } from './replica-attach';
import { serveUpgrades } from './upgrades';

/** A fake of the router: records what RemoteReplicas tells it. */
function fakeRouter() {
  const replicas: Replica[] = [];
  const events: string[] = [];
  const router: RemoteRouter = {
    get replicas() {
      return replicas;
    },
    addReplica: (r) => void replicas.push(r),
    replicaUp: (i) => void events.push(`up ${i}`),
    replicaDown: (i, reason) => void events.push(`down ${i}: ${reason}`),
  };
  return { router, replicas, events };
}

const replicaOf = (index: number, engine: EngineHost, host: string): Replica => ({
  index,
  engine,
  gate: new Admission(engine, { maxInFlight: 4 }),
  busy: new BusyClock(0),
  tokens: 0,
  calls: 0,
  link: null,
  joins: 0,
  version: -1,
  host,
});

async function listen(remote: RemoteReplicas | null): Promise<{ server: Server; url: string; stop: () => void }> {
  const server = createServer((_req, res) => res.writeHead(404).end());
  const stop = serveUpgrades(server, {
    [REPLICA_ATTACH_PATH]: new ReplicaAttachServer(remote, new TokenMatcher(TEST_TOKENS)).upgrade,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, stop };
}

/** Dials the attach endpoint by hand: the HTTP status of a refusal, or the open socket (`onOpen` sees it first). */
function dial(
  url: string,
  name: string,
  headers: Record<string, string>,
  onOpen: (ws: WebSocket) => void = () => undefined,
): Promise<number | WebSocket> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}${REPLICA_ATTACH_PATH}?name=${name}`, { headers });
  return new Promise((resolve, reject) => {
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('open', () => {
      onOpen(ws); // before any message: the worker's first frame may come with the handshake
      resolve(ws);
    });
    ws.on('error', (err) => {
      if (ws.readyState !== WebSocket.OPEN) reject(err);
    });
  });
}

describe('rollout replicas attached from another host', () => {
  const logs: string[] = [];
  const hosts: ReplicaHost[] = [];
  const fake = fakeRouter();
  let dir: string;
  let python: string;
  let remote: RemoteReplicas;
  let worker: Awaited<ReturnType<typeof listen>>;
  const files = formatModelFiles(modelFiles(BUILTIN_MODEL_DIR));
  const host = (o: Partial<ReplicaHostOptions>): ReplicaHost => {
    const h = startReplicaHost({
      worker: worker.url,
      token: TEST_TOKENS.admin,
      name: 'hostb',
      replicas: 1,
      threads: 3,
      model: BUILTIN_MODEL_DIR,
      python,
      log: (l) => logs.push(l),
      backoff: { initialMs: 50, maxMs: 200 },
      ...o,
    });
    hosts.push(h);
    return h;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'aj-attach-'));
    python = fakeEnginePython(dir);
    remote = new RemoteReplicas({
      router: fake.router,
      replica: replicaOf,
      load: { path: '/the/worker/model', threads: 1, role: 'replica' },
      configure: { maxRows: 2 },
      files: modelFiles(BUILTIN_MODEL_DIR),
      trainer: { info: null },
      log: (level, source, message) => logs.push(`${level} ${source}: ${message}`),
    });
    worker = await listen(remote);
  });
  afterAll(async () => {
    await Promise.all(hosts.map((h) => h.stop()));
    await remote.dispose();
    worker.stop();
    worker.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("joins the router loaded with its host's model folder and threads, and serves replica methods only", async () => {
    host({});
    await until(
      () => fake.replicas[0]?.engine.status,
      (s) => s === 'ready',
    );
    const r = fake.replicas[0]!;
    expect(r).toMatchObject({ index: 0, host: 'hostb/0', storeHost: '127.0.0.1' });
    expect(fake.events).toEqual(['up 0']);
    expect(r.engine.info).toMatchObject({ model: BUILTIN_MODEL_DIR, threads: 3, device: 'auto' });
    expect(r.engine.pid).toBeUndefined();
    await expect(r.engine.call('save', { path: '/tmp/x' })).rejects.toMatchObject({ code: 'not_for_replicas' });
    const abort = new AbortController();
    const generating = r.engine.call(
      'generate',
      { requests: [{ promptIds: [1, 2], maxTokens: 4, temperature: 0 }] },
      { signal: abort.signal },
    );
    abort.abort();
    await expect(generating).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('counts a host that goes away as a dead replica, and takes it back under its name', async () => {
    await hosts[0]!.stop();
    await until(
      () => fake.events.length,
      (n) => n >= 2,
    );
    expect(fake.events[1]).toMatch(/^down 0: rollout replica hostb\/0 disconnected/);
    expect(fake.replicas[0]!.engine.status).toBe('restarting');
    host({});
    await until(
      () => fake.replicas[0]!.engine.status,
      (s) => s === 'ready',
    );
    expect(fake.replicas).toHaveLength(1);
    expect(fake.replicas[0]!.engine.restarts).toBe(1);
    expect(fake.events.slice(2)).toEqual(['up 0']);
  });

  it('refuses a forged token, another model and a bad name before the upgrade', async () => {
    expect(await dial(worker.url, 'x/0', { authorization: 'Bearer forged-token-0123456789' })).toBe(401);
    expect(await dial(worker.url, 'x/0', { authorization: `Bearer ${TEST_TOKENS.join}` })).toBe(403);
    const admin = { authorization: `Bearer ${TEST_TOKENS.admin}` };
    expect(await dial(worker.url, 'no-index', { ...admin, [MODEL_FILES_HEADER]: files })).toBe(400);
    expect(await dial(worker.url, 'x/0', admin)).toBe(400);

    const forged = host({ name: 'forger', token: 'forged-token-0123456789' });
    await forged.done;
    expect(forged.links[0]!.stopped).toMatch(/refused \(401\)/);

    const other = join(dir, 'other-model');
    mkdirSync(other);
    writeFileSync(join(other, 'config.json'), '{"model_type": "llama"}');
    const wrong = host({ name: 'wrongmodel', model: other });
    await wrong.done;
    expect(wrong.links[0]!.stopped).toMatch(/refused \(409\): the replica host's model is not the trainer's: /);
    expect(wrong.links[0]!.stopped).toMatch(/config\.json \(differs\)/);
    expect(fake.replicas).toHaveLength(1);
  });

  it('stops a replica whose host cannot load the model, and leaves it out of the router', async () => {
    const copy = join(dir, `${UNLOADABLE}-model`);
    mkdirSync(copy);
    for (const f of MODEL_IDENTITY_FILES)
      if (existsSync(join(BUILTIN_MODEL_DIR, f))) copyFileSync(join(BUILTIN_MODEL_DIR, f), join(copy, f));
    const h = host({ name: 'nomodel', model: copy });
    await h.done;
    expect(h.links[0]!.attaches).toBe(1);
    expect(h.links[0]!.stopped).toBe('the model could not be loaded here: cannot load [fake]');
    expect(fake.replicas.map((r) => r.host)).not.toContain('nomodel/0');
  });

  it('drops the socket of a replica whose engine answers with something that is not a frame', async () => {
    const admin = { authorization: `Bearer ${TEST_TOKENS.admin}`, [MODEL_FILES_HEADER]: files };
    let closed: Promise<number> = Promise.resolve(-1);
    const ws = await dial(worker.url, 'raw/0', admin, (socket) => {
      closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
      socket.once('message', () => socket.send('this is not json'));
    });
    if (typeof ws === 'number') throw new Error(`refused: ${ws}`);
    expect(await closed).toBe(ReplicaClose.badFrame);
    await until(
      () => logs.join('\n'),
      (l) => /the engine of raw\/0 did not start: .*protocol failure/.test(l),
    );
    // it joins the router only once an engine of its name has loaded the model
    expect(fake.replicas.map((r) => r.host)).not.toContain('raw/0');
  });
});

describe('a worker that takes no remote replicas', () => {
  it('refuses the attach with what to change', async () => {
    const worker = await listen(null);
    const logs: string[] = [];
    try {
      const h = startReplicaHost({
        worker: worker.url,
        token: TEST_TOKENS.admin,
        name: 'hostc',
        replicas: 1,
        threads: 1,
        model: BUILTIN_MODEL_DIR,
        log: (l) => logs.push(l),
      });
      await h.done;
      expect(h.links[0]!.stopped).toMatch(/refused \(409\): .*start it with --remote-replicas true/);
    } finally {
      worker.stop();
      worker.server.close();
    }
  });
});

describe('a replica host whose worker sends something that is not an engine request', () => {
  it('ends that socket (the replica counts as dead) and attaches again', async () => {
    const wss = new WebSocketServer({ noServer: true });
    const closes: number[] = [];
    wss.on('connection', (ws) => {
      ws.on('close', (code) => closes.push(code));
      ws.send(closes.length === 0 ? '{"not": "a request"}' : 'not json at all');
    });
    const server = createServer((_req, res) => res.writeHead(404).end());
    const stop = serveUpgrades(server, {
      [REPLICA_ATTACH_PATH]: (req, socket, head) =>
        wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws)),
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const dir = mkdtempSync(join(tmpdir(), 'aj-badworker-'));
    const h = startReplicaHost({
      worker: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      token: TEST_TOKENS.admin,
      name: 'hostd',
      replicas: 1,
      threads: 1,
      model: BUILTIN_MODEL_DIR,
      python: fakeEnginePython(dir),
      log: () => undefined,
      backoff: { initialMs: 20, maxMs: 50 },
    });
    try {
      await until(
        () => closes.length,
        (n) => n >= 2,
      );
      expect(closes.slice(0, 2)).toEqual([ReplicaClose.badFrame, ReplicaClose.badFrame]);
      expect(h.links[0]!.attaches).toBeGreaterThanOrEqual(2);
      expect(h.links[0]!.stopped).toBeNull();
    } finally {
      await h.stop();
      for (const ws of wss.clients) ws.terminate();
      stop();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
