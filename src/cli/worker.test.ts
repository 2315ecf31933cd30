import { describe, expect, it } from 'vitest';
import { parseFlags } from './flags';
import { explicitTokens, workerConfigFromOptions, WorkerOptionsSchema } from './worker';

const parse = (argv: string[]) => WorkerOptionsSchema.parse(parseFlags(argv));

describe('agentjet worker options', () => {
  it('maps every flag onto the worker config, passing only what was given', () => {
    const o = parse([
      '--model',
      'builtin',
      '--port',
      '0',
      '--host',
      '0.0.0.0',
      '--run-dir',
      'r',
      '--strategy',
      'C3',
      '--batch',
      '4',
      '--group-size',
      '8',
      '--algo',
      'rloo',
      '--merge',
      'none',
      '--level',
      'text',
      '--lr',
      '3e-5',
      '--max-staleness',
      '1',
      '--checkpoint-every',
      '5',
      '--force-train-sampling',
      'false',
      '--max-tokens',
      '64',
      '--episode-timeout',
      '30',
      '--threads',
      '2',
    ]);
    const { config, resume } = workerConfigFromOptions(o, '/base');
    expect(resume).toBe(false);
    expect(config).toEqual({
      runDir: '/base/r',
      model: 'builtin',
      port: 0,
      host: '0.0.0.0',
      episodeTimeoutS: 30,
      threads: 2,
      training: {
        strategy: 'C3',
        batch: 4,
        groupSize: 8,
        algo: 'rloo',
        merge: 'none',
        level: 'text',
        lr: 3e-5,
        maxStaleness: 1,
        checkpointEvery: 5,
        forceTrainSampling: false,
        defaultMaxTokens: 64,
      },
    });
  });

  it('maps the engine flags: training mode, LoRA, checkpointing, ranks and devices', () => {
    const { config } = workerConfigFromOptions(
      parse([
        '--lora-r',
        '8',
        '--lora-targets',
        'q_proj,v_proj',
        '--activation-checkpointing',
        'true',
        '--engine-procs',
        '2',
        '--engine-devices',
        '0,1',
      ]),
      '/b',
    );
    expect(config).toMatchObject({
      lora: { r: 8, alpha: 16, targetModules: ['q_proj', 'v_proj'] },
      activationCheckpointing: true,
      engineProcs: 2,
      engineDevices: '0,1',
    });
    const full = workerConfigFromOptions(parse(['--run-dir', 'r', '--train-mode', 'full']), '/b').config;
    expect(full).toEqual({ runDir: '/b/r', training: {}, trainMode: 'full' });
    expect(() => workerConfigFromOptions(parse(['--lora-alpha', '4']), '/b')).toThrow(/need --lora-r/);
    expect(() => workerConfigFromOptions(parse(['--train-mode', 'full', '--lora-r', '4']), '/b')).toThrow(
      /contradicts/,
    );
    expect(WorkerOptionsSchema.safeParse(parseFlags(['--engine-devices', 'gpu0'])).success).toBe(false);
  });

  it('maps the transport flags: TLS (files resolved like every path) and the insecure-bind opt-in', () => {
    const own = parse(['--host', '0.0.0.0', '--tls-cert', 'c/cert.pem', '--tls-key', 'c/key.pem', '--run-dir', 'r']);
    expect(workerConfigFromOptions(own, '/b').config).toMatchObject({
      host: '0.0.0.0',
      tlsCert: '/b/c/cert.pem',
      tlsKey: '/b/c/key.pem',
    });
    const selfSigned = parse(['--tls', 'self-signed', '--insecure-http', 'false', '--run-dir', 'r']);
    expect(workerConfigFromOptions(selfSigned, '/b').config).toMatchObject({ tls: 'self-signed', insecureHttp: false });
    expect(workerConfigFromOptions(parse(['--insecure-http', 'true']), '/b').config.insecureHttp).toBe(true);
    expect(WorkerOptionsSchema.safeParse(parseFlags(['--tls', 'on'])).success).toBe(false);
  });

  it('resumes a run dir and refuses contradictions and unknown flags', () => {
    expect(workerConfigFromOptions(parse(['--resume', 'runs/x']), '/b')).toEqual({
      config: { runDir: '/b/runs/x', training: {} },
      resume: true,
    });
    expect(() => workerConfigFromOptions(parse(['--resume', 'a', '--run-dir', 'b']), '/b')).toThrow(/--resume/);
    expect(() => workerConfigFromOptions(parse(['--model', '/no/such/folder']), '/b')).toThrow(/no such folder/);
    expect(WorkerOptionsSchema.safeParse(parseFlags(['--strategy', 'C9'])).success).toBe(false);
    expect(WorkerOptionsSchema.safeParse(parseFlags(['--bogus', '1'])).success).toBe(false);
  });

  it('takes tokens from the flags, else the environment, and refuses short or equal ones with the source named', () => {
    const env = {
      AGENTJET_ADMIN_TOKEN: 'env-admin-token-0123456789',
      AGENTJET_JOIN_TOKEN: 'env-join-token-0123456789',
    };
    expect(explicitTokens({}, env)).toEqual({ admin: env.AGENTJET_ADMIN_TOKEN, join: env.AGENTJET_JOIN_TOKEN });
    expect(explicitTokens({ joinToken: 'flag-join-token-0123456789' }, env)).toEqual({
      admin: env.AGENTJET_ADMIN_TOKEN,
      join: 'flag-join-token-0123456789',
    });
    expect(explicitTokens({}, {})).toEqual({});
    expect(() => explicitTokens({}, { AGENTJET_JOIN_TOKEN: 'short' })).toThrow(
      /AGENTJET_JOIN_TOKEN is 5 characters long; use at least 16/,
    );
    expect(() => explicitTokens({ adminToken: 'tiny' }, env)).toThrow(/--admin-token is 4 characters/);
    expect(() => explicitTokens({ adminToken: env.AGENTJET_JOIN_TOKEN }, env)).toThrow(
      /--admin-token and AGENTJET_JOIN_TOKEN are the same/,
    );
  });

  it('takes the replica token the same way, and refuses one that is the admin or join token', () => {
    const env = {
      AGENTJET_ADMIN_TOKEN: 'env-admin-token-0123456789',
      AGENTJET_REPLICA_TOKEN: 'env-replica-0123456789',
    };
    expect(explicitTokens({}, env)).toEqual({ admin: env.AGENTJET_ADMIN_TOKEN, replica: env.AGENTJET_REPLICA_TOKEN });
    const flag = 'flag-replica-0123456789';
    expect(explicitTokens({ replicaToken: flag }, env).replica).toBe(flag);
    expect(parse(['--replica-token', flag])).toMatchObject({ replicaToken: flag });
    expect(() => explicitTokens({ replicaToken: env.AGENTJET_ADMIN_TOKEN }, env)).toThrow(
      /^--replica-token is the same as AGENTJET_ADMIN_TOKEN: the replica token must differ/,
    );
    const join = 'flag-join-token-0123456789';
    expect(() => explicitTokens({ joinToken: join }, { ...env, AGENTJET_REPLICA_TOKEN: join })).toThrow(
      /^AGENTJET_REPLICA_TOKEN is the same as --join-token/,
    );
    expect(() => explicitTokens({}, { AGENTJET_REPLICA_TOKEN: 'short' })).toThrow(
      /AGENTJET_REPLICA_TOKEN is 5 characters/,
    );
  });
});
