// The replica attach path end to end without Python: a real HTTP server with the attach endpoint and
// RemoteReplicas (over a recording fake of the router), real `agentjet replica` hosts
// (startReplicaHost) whose engines are the fake engine program over real stdio, real sockets between
// them. A replica attaches, is loaded with its host's model folder and threads, serves only replica
// methods, cancels, dies with its host and comes back under its name; forged tokens, another model, a
// worker without --remote-replicas and malformed frames are refused with what went wrong. The replica
// token (issue #21: least privilege) attaches too, and a whole worker refuses it everywhere else exactly
// as it refuses a forged token; a worker whose replica token is its admin or join token does not start.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import WebSocket, { WebSocketServer } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_FILES_HEADER, ReplicaClose } from '../../../src/shared/replica-attach';
import type { EngineHost } from '../engine/engine-host';
import { formatModelFiles, MODEL_IDENTITY_FILES, modelFiles } from '../engine/replicas/model-files';
import { RemoteReplicas, type RemoteRouter } from '../engine/replicas/remote-replicas';
import { startReplicaHost, type ReplicaHost, type ReplicaHostOptions } from '../engine/replicas/replica-host';
import type { Replica } from '../engine/replicas/replica-router';
import { BUILTIN_MODEL_DIR } from '../resources';
import { explicitTokenProblem, TokenMatcher } from '../swarm/keys';
import { preparePrivateDir, resolveTokens, runFiles } from '../swarm/run-dir';
import { fakeEngineFactory } from '../testing/fake-engine';
import { testReplica } from '../testing/replicas';
import { fakeEnginePython, UNLOADABLE } from '../testing/fake-engine-program';
import { until } from '../testing/swarm-play';
import { http, startFakeWorker, tempDir, TEST_TOKENS, type TestWorker } from '../testing/workers';
import { startWorker } from '../worker';
import { EVENTS_PATH } from './events-ws';
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

const replicaOf = (index: number, engine: EngineHost, host: string): Replica =>
  testReplica(index, engine, { host, maxInFlight: 4 });

/** The worker's replica token in these tests: good for attaching replicas, nothing else. */
const REPLICA_TOKEN = 'test-replica-token-0123456789';
const FORGED_TOKEN = 'forged-token-0123456789';

async function listen(remote: RemoteReplicas | null): Promise<{ server: Server; url: string; stop: () => void }> {
  const server = createServer((_req, res) => res.writeHead(404).end());
  const attach = new ReplicaAttachServer(
    remote,
    new TokenMatcher(TEST_TOKENS),
    new TokenMatcher<'replica'>({ replica: REPLICA_TOKEN }),
  );
  const stop = serveUpgrades(server, { [REPLICA_ATTACH_PATH]: attach.upgrade });
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

/** An upgrade's refusal — its status and error body — or `opened` if the socket opened (then closed). */
function upgradeRefusal(
  url: string,
  path: string,
  token: string,
): Promise<{ status: number; body: unknown } | 'opened'> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return new Promise((resolve, reject) => {
    ws.on('unexpected-response', (_req, res: IncomingMessage) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown });
        ws.terminate();
      });
    });
    ws.on('open', () => {
      ws.close();
      resolve('opened');
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
    expect(await dial(worker.url, 'x/0', { authorization: `Bearer ${FORGED_TOKEN}` })).toBe(401);
    expect(await dial(worker.url, 'x/0', { authorization: `Bearer ${TEST_TOKENS.join}` })).toBe(403);
    const admin = { authorization: `Bearer ${TEST_TOKENS.admin}` };
    expect(await dial(worker.url, 'no-index', { ...admin, [MODEL_FILES_HEADER]: files })).toBe(400);
    expect(await dial(worker.url, 'x/0', admin)).toBe(400);

    const forged = host({ name: 'forger', token: FORGED_TOKEN });
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

  it('attaches a host that holds only the replica token', async () => {
    const withFiles = { [MODEL_FILES_HEADER]: files };
    // past the token check to the name's (400), where a forged token stops (401)
    expect(await dial(worker.url, 'no-index', { authorization: `Bearer ${REPLICA_TOKEN}`, ...withFiles })).toBe(400);
    expect(await dial(worker.url, 'no-index', { 'x-api-key': REPLICA_TOKEN, ...withFiles })).toBe(400);
    expect(await dial(worker.url, 'no-index', { authorization: `Bearer ${REPLICA_TOKEN}x`, ...withFiles })).toBe(401);

    const h = host({ name: 'leastpriv', token: REPLICA_TOKEN });
    await until(
      () => fake.replicas.find((r) => r.host === 'leastpriv/0')?.engine.status,
      (s) => s === 'ready',
    );
    expect(h.links[0]).toMatchObject({ state: 'attached', attaches: 1, stopped: null });
    expect(logs.join('\n')).not.toContain(REPLICA_TOKEN);
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

describe('a worker with a replica token', () => {
  let t: TestWorker;
  beforeAll(async () => {
    t = await startFakeWorker({}, { start: { tokens: { ...TEST_TOKENS, replica: REPLICA_TOKEN } } });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('lets it past the attach check, and nowhere else', async () => {
    const url = t.worker.url;
    // this worker takes no remote replicas: a token the attach admits meets that refusal (409)
    expect(await upgradeRefusal(url, `${REPLICA_ATTACH_PATH}?name=h/0`, REPLICA_TOKEN)).toMatchObject({
      status: 409,
      body: { error: { code: 'remote_replicas_off' } },
    });
    expect(await upgradeRefusal(url, `${REPLICA_ATTACH_PATH}?name=h/0`, FORGED_TOKEN)).toMatchObject({ status: 401 });

    // the events WebSocket: the forged token's 401, word for word
    const forgedEvents = await upgradeRefusal(url, EVENTS_PATH, FORGED_TOKEN);
    expect(forgedEvents).toMatchObject({ status: 401 });
    expect(await upgradeRefusal(url, EVENTS_PATH, REPLICA_TOKEN)).toEqual(forgedEvents);
    expect(await upgradeRefusal(url, EVENTS_PATH, TEST_TOKENS.admin)).toBe('opened');

    // admin, join and inference routes over HTTP: the forged token's answer, word for word
    const routes = [
      ['GET', '/swarm/v1/config'],
      ['POST', '/swarm/v1/control/pause'],
      ['GET', '/swarm/v1/status'],
      ['GET', REPLICA_ATTACH_PATH],
      ['GET', '/v1/models'],
    ] as const;
    for (const [method, path] of routes) {
      const forged = await http(url, method, path, { token: FORGED_TOKEN });
      const replica = await http(url, method, path, { token: REPLICA_TOKEN });
      expect(forged.status, `${method} ${path}`).toBe(401);
      expect({ status: replica.status, body: replica.body }, `${method} ${path}`).toEqual({
        status: forged.status,
        body: forged.body,
      });
    }
    expect((await http(url, 'GET', '/swarm/v1/config', { token: TEST_TOKENS.admin })).status).toBe(200);
    expect(t.worker.swarm.state).not.toBe('paused');
    expect(t.logs.join('\n')).not.toContain(REPLICA_TOKEN);
  });
});

describe('the replica token at start', () => {
  it('is refused when it is the admin or a join token, naming where each came from', () => {
    const sources = { admin: '--admin-token', join: 'AGENTJET_JOIN_TOKEN', replica: 'AGENTJET_REPLICA_TOKEN' };
    expect(explicitTokenProblem({ ...TEST_TOKENS, replica: TEST_TOKENS.admin }, sources)).toMatch(
      /^AGENTJET_REPLICA_TOKEN is the same as --admin-token: the replica token must differ from the admin and join/,
    );
    expect(explicitTokenProblem({ ...TEST_TOKENS, replica: TEST_TOKENS.join }, sources)).toMatch(
      /^AGENTJET_REPLICA_TOKEN is the same as AGENTJET_JOIN_TOKEN/,
    );
    expect(explicitTokenProblem({ replica: 'short' }, sources)).toMatch(/AGENTJET_REPLICA_TOKEN is 5 characters/);
    expect(explicitTokenProblem({ ...TEST_TOKENS, replica: REPLICA_TOKEN }, sources)).toBeNull();
  });

  it('is refused against the tokens saved in the run folder, and never written there', () => {
    const files = runFiles(join(tempDir('aj-replica-token-'), 'run'));
    preparePrivateDir(files.dir);
    const { tokens } = resolveTokens(files, {});
    expect(() => resolveTokens(files, { replica: tokens.admin })).toThrow(
      /^the replica token is the same as the admin token in .*tokens\.json: /,
    );
    expect(() => resolveTokens(files, { admin: tokens.admin, replica: tokens.join })).toThrow(
      /^the replica token is the same as the join token in .*tokens\.json: /,
    );
    expect(resolveTokens(files, { replica: REPLICA_TOKEN })).toMatchObject({ tokens, replica: REPLICA_TOKEN });
    expect(readFileSync(files.tokens, 'utf8')).not.toContain(REPLICA_TOKEN);
    rmSync(dirname(files.dir), { recursive: true, force: true });
  });

  it('stops a worker from starting, before its engine', async () => {
    const dir = tempDir('aj-replica-start-');
    const { factory, engines } = fakeEngineFactory();
    try {
      const start = startWorker(
        { model: '/fake/model', port: 0, runDir: join(dir, 'run') },
        { engineFactory: factory, tokens: { ...TEST_TOKENS, replica: TEST_TOKENS.admin }, log: () => undefined },
      );
      await expect(start).rejects.toThrow(/^the replica token is the same as the admin token: /);
      expect(engines).toHaveLength(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
