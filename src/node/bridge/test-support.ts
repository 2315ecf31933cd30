// Test fakes for the bridge: a scripted WorkbenchBackend and a hand-driven event source.
import {
  WorkbenchError,
  type Session,
  type WorkbenchBackend,
  type WorkbenchEvent,
  type WorkbenchParsedParams,
} from '../../shared/workbench-api';

export const fakeSession: Session = {
  runId: 'run-1',
  mode: 'local',
  workerUrl: 'http://127.0.0.1:1',
  state: 'running',
  model: 'builtin',
  example: 'calculator-agent',
  step: 3,
  weightVersion: 3,
  strategy: null,
  progress: null,
  poolEpisodes: 0,
  activity: null,
  error: null,
  startedAt: 1,
};

/** A scripted WorkbenchBackend: records connectLocal params, fails on purpose where told. */
const notInFake = async (): Promise<never> => {
  throw new WorkbenchError('unsupported', 'not in the fake backend');
};

export class FakeBackend implements WorkbenchBackend {
  readonly localConnects: WorkbenchParsedParams<'connectLocal'>[] = [];
  appInfo = async () => ({ name: 'fake', version: '0.0.0', platform: 'test', transport: 'electron' as const });
  examples = async () => ({ examples: [{ name: 'calculator-agent', description: 'calc', files: ['client.ts'] }] });
  session = async () => fakeSession;
  /** Set to make connectLocal fail with this message. */
  failLocal: string | null = null;
  connectLocal = async (p: WorkbenchParsedParams<'connectLocal'>) => {
    this.localConnects.push(p);
    if (this.failLocal) throw new WorkbenchError('worker_failed', this.failLocal);
    return fakeSession;
  };
  connectRemote = async (p: WorkbenchParsedParams<'connectRemote'>): Promise<Session> => {
    throw new WorkbenchError('unreachable', `cannot reach ${p.url}`);
  };
  disconnect = async () => ({ ok: true as const });
  codeFiles = async () => ({ runId: 'run-1', codeVersion: null, entry: 'client.ts', files: [] });
  saveCode = async () => ({ ok: false as const, errors: [] });
  codeVersionFiles = async () => ({ files: [] });
  metrics = async (p: { runId: string }) => ({ runId: p.runId, steps: [], evals: [], markers: [] });
  clients = async () => ({ clients: [] });
  clientAction = async () => ({ ok: true as const });
  restartWorker = async () => ({ ok: true as const });
  logs = async () => ({ lines: [] });
  episodes = async () => ({ total: 0, offset: 0, rows: [] });
  episodeDetail = async (): Promise<never> => {
    throw new Error('boom');
  };
  runs = async () => ({ runs: [] });
  exportRun = async (p: { runId: string }) => ({ dir: `/exports/${p.runId}`, files: [] });
  campaigns = async () => ({ campaigns: [] });
  campaign = async (): Promise<never> => {
    throw new WorkbenchError('not_found', 'no campaign');
  };
  campaignStart = async (): Promise<never> => {
    throw new WorkbenchError('bad_campaign', 'no file');
  };
  campaignCommand = async () => ({ ok: true as const });
  campaignDecision = async () => ({ ok: true as const });
  taskDraft = async (): Promise<never> => {
    throw new WorkbenchError('unsupported', 'no LLM in the fake');
  };
  // Learned rewards: not exercised by the bridge's tests.
  labels = notInFake;
  putLabel = notInFake;
  deleteLabel = notInFake;
  labelQueue = notInFake;
  importLabels = notInFake;
  exportLabels = notInFake;
  episodeConversation = notInFake;
  rewardModels = notInFake;
  trainRewardModel = notInFake;
  deployRewardModel = notInFake;
  rewardComparison = notInFake;
  quarantine = notInFake;
  rewardTry = notInFake;
  releaseQuarantine = notInFake;
  quarantineList = notInFake;
  forkCall = notInFake;
  saveProbe = notInFake;
  runProbes = notInFake;
  probes = notInFake;
  regressBoard = notInFake;
  /** A result JSON cannot carry (a backend bug the bridge must survive). */
  codeVersions = async (): Promise<{ versions: [] }> => {
    const cyclic: { versions: []; self?: unknown } = { versions: [] };
    cyclic.self = cyclic;
    return cyclic;
  };
}

/** A hand-driven event source standing in for the workbench's onEvent. */
export class FakeEvents {
  private readonly listeners = new Set<(e: WorkbenchEvent) => void>();
  onEvent = (l: (e: WorkbenchEvent) => void): (() => void) => {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  };
  emit(e: WorkbenchEvent): void {
    for (const l of this.listeners) l(e);
  }
  get count(): number {
    return this.listeners.size;
  }
}
