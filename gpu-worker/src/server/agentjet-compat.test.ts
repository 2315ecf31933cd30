// AgentJet compatibility against a worker with the fake engine: the routes only exist with
// `agentjetCompat` and only under the join token; the client's lifecycle — OFFLINE, sync_train_config,
// start_engine, claim, chat under the prefixed base URL, end, pool information, agree_sync_weight,
// stop_engine — with AgentJet's field names, status strings and failure texts.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedReply } from '../testing/scripted-replies';
import { http, startFakeWorker, TEST_TOKENS, type TestWorker } from '../testing/workers';
import { SYNC_HOLD_MS } from './agentjet-compat';

const YAML = `ajet:
  swarm_mode_sample_collection_method: rollout_until_all_clients_agree_sync_weight
  data:
    train_batch_size: 2
    max_prompt_length: 3000
  rollout:
    num_repeat: 2
    temperature: 0.9
  trainer_common:
    algorithm:
      adv_estimator: grpo_passk
    optim:
      lr: 2.0e-5
    kl_loss_coef: 0.002
    use_kl_loss: true
  context_tracker:
    timeline_merging_policy:
      timeline_compare_level: text
`;

describe('AgentJet compat routes (fake engine)', () => {
  let t: TestWorker;
  let plain: TestWorker;
  const base = (): string => `/agentjet/${TEST_TOKENS.join}`;
  const post = <T = Record<string, unknown>>(path: string, body: unknown) =>
    http<T>(t.worker.url, 'POST', `${base()}${path}`, { body });
  const get = <T = Record<string, unknown>>(path: string) => http<T>(t.worker.url, 'GET', `${base()}${path}`);
  const status = async (): Promise<string> => String((await get('/get_engine_status')).body['engine_status']);

  beforeAll(async () => {
    t = await startFakeWorker({ agentjetCompat: true }, { engine: { reply: scriptedReply, stepMs: 1 } });
    plain = await startFakeWorker({}, { engine: { reply: scriptedReply, stepMs: 1 } });
  });
  afterAll(async () => {
    await t.stop();
    await plain.stop();
  });

  it('exists only when enabled and only under the join token, which is never echoed', async () => {
    // Without --agentjet-compat the path is an ordinary unauthenticated request (refused before routing).
    expect((await http(plain.worker.url, 'GET', `${base()}/get_engine_status`)).status).toBe(401);
    const wrong = await http(t.worker.url, 'GET', '/agentjet/not-the-token/get_engine_status');
    expect(wrong.status).toBe(404);
    const admin = await http(t.worker.url, 'GET', `/agentjet/${TEST_TOKENS.admin}/get_engine_status`);
    expect(admin.status).toBe(404);
    expect(JSON.stringify(admin.body)).not.toContain(TEST_TOKENS.admin);
    expect((await http(t.worker.url, 'GET', '/get_engine_status')).status).toBe(401);
    // #19 §5: a token over 500 characters is a wrong token like any other; a trailing slash is an unknown route.
    const long = await http(t.worker.url, 'GET', `/agentjet/${'t'.repeat(501)}/get_engine_status`);
    expect(long.status).toBe(404);
    expect(JSON.stringify(long.body)).not.toMatch(/joinToken/);
    const slash = await http(t.worker.url, 'GET', `${base()}/get_engine_status/`);
    expect(slash.status).toBe(404);
    expect(slash.body).toMatchObject({ error: { code: 'route_not_found' } });
    expect(JSON.stringify(slash.body)).not.toContain(TEST_TOKENS.join);
    // The inference routes under the prefix still need the episode key.
    expect(
      (
        await http(t.worker.url, 'POST', `${base()}/v1/chat/completions`, {
          body: { messages: [{ role: 'user', content: 'x' }] },
        })
      ).status,
    ).toBe(401);
  });

  it('runs a client lifecycle: offline, config sync, start, claim, chat, end, pool, agree, stop', async () => {
    expect(await status()).toBe('ENGINE.OFFLINE');
    const refused = await post('/claim_episode', {
      client_uuid: 'u-1',
      episode_type: 'train',
      discard_episode_timeout: 60,
    });
    expect(refused.body).toMatchObject({
      success: false,
      episode_uuid: '',
      fail_cause: expect.stringContaining('[ENGINE.OFFLINE]'),
    });

    const sync = await post<{
      success: boolean;
      applied: Record<string, unknown>;
      ignored: string[];
      config: Record<string, unknown>;
    }>('/sync_train_config', { yaml_as_string: YAML });
    expect(sync.status).toBe(200);
    expect(Object.keys(sync.body.applied).sort()).toEqual([
      'ajet.context_tracker.timeline_merging_policy.timeline_compare_level',
      'ajet.data.train_batch_size',
      'ajet.rollout.num_repeat',
      'ajet.rollout.temperature',
      'ajet.swarm_mode_sample_collection_method',
      'ajet.trainer_common.kl_loss_coef',
      'ajet.trainer_common.optim.lr',
      'ajet.trainer_common.use_kl_loss',
    ]);
    expect(sync.body.ignored).toEqual(
      expect.arrayContaining([
        'ajet.data.max_prompt_length',
        expect.stringMatching(/^ajet\.trainer_common\.algorithm\.adv_estimator \(/),
      ]),
    );
    expect(sync.body.config).toMatchObject({
      strategy: 'C5',
      batch: 2,
      groupSize: 2,
      lr: 2e-5,
      klCoef: 0.002,
      temperature: 0.9,
      level: 'text',
    });
    expect(t.worker.swarm.training.strategy).toBe('C5');

    expect((await post('/start_engine', {})).body).toMatchObject({ success: true });
    expect(await status()).toBe('ENGINE.ROLLING');
    const again = await post('/sync_train_config', { yaml_as_string: YAML });
    expect(again.status).toBe(400);
    expect(again.body['detail']).toMatch(/stop_engine/);

    const claim = await post<{
      success: boolean;
      episode_uuid: string;
      openai_base_url: string;
      openai_api_key: string;
      client_uuid: string;
    }>('/claim_episode', {
      client_uuid: 'u-1',
      episode_type: 'train',
      discard_episode_timeout: 60,
      throttle_policy: { ratio: 1.5, expected_batch_size: 2, expected_num_repeat: 2, current_task_id: 'task-7' },
    });
    expect(claim.body).toMatchObject({ success: true, client_uuid: 'u-1' });
    expect(new URL(claim.body.openai_base_url).pathname).toBe('/v1');
    // What AgentJet's client does: the scheme and host replaced by its server URL, prefix included.
    const baseURL = claim.body.openai_base_url.replace(/^https?:\/\/[^/]+/, `${t.worker.url}${base()}`);
    const openai = new OpenAI({ baseURL, apiKey: claim.body.openai_api_key, maxRetries: 0 });
    const reply = await openai.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'hi' }] });
    expect(reply.choices[0]!.message.content).toBe('Hello from the fake engine.');
    const viaResponses = await openai.responses.create({ model: 'x', input: 'hi' });
    expect(viaResponses.output_text).toBe('Hello from the fake engine.');

    expect(
      (await post('/can_continue_episode', { client_uuid: 'u-1', episode_uuid: claim.body.episode_uuid })).body,
    ).toEqual({ can_continue: true });
    const pool1 = await get<{
      running_episode_details: Record<string, { client_uuid: string; optional_task_id: string }>;
    }>('/get_current_batch_rollout_pool_information');
    expect(pool1.body.running_episode_details[claim.body.episode_uuid]).toMatchObject({
      client_uuid: 'u-1',
      optional_task_id: 'task-7',
    });

    const rejected = await post('/agree_sync_weight', { client_uuid: 'u-1' });
    expect(rejected.body).toMatchObject({
      success: false,
      failure_reason: expect.stringContaining('active client list'),
    });
    const other = await post('/end_episode', {
      client_uuid: 'u-2',
      episode_uuid: claim.body.episode_uuid,
      task_id: 'task-7',
      workflow_output: { reward: 1, metadata: { task_id: 'task-7' } },
    });
    expect(other.status).toBe(404);
    const listReward = await post('/end_episode', {
      client_uuid: 'u-1',
      episode_uuid: claim.body.episode_uuid,
      task_id: 'task-7',
      workflow_output: { reward: [1, 0], metadata: {} },
    });
    expect(listReward.status).toBe(400);
    const end = await post('/end_episode', {
      client_uuid: 'u-1',
      episode_uuid: claim.body.episode_uuid,
      task_id: 'task-7',
      workflow_output: {
        reward: 0.75,
        is_success: true,
        metadata: { task_id: 'task-7' },
        log_metrics: { turns: 2, steps: [1, 2] },
      },
      declare_client_active: true,
    });
    expect(end.body).toEqual({ success: true });
    const twice = await post('/end_episode', {
      client_uuid: 'u-1',
      episode_uuid: claim.body.episode_uuid,
      task_id: 'task-7',
      workflow_output: { reward: 1, metadata: { task_id: 'task-7' } },
    });
    expect(twice.status).toBe(400);
    expect(String(twice.body['detail'])).toContain('not in claimed status');
    const pool2 = await get<Record<string, unknown>>('/get_current_batch_rollout_pool_information');
    expect(pool2.body).toMatchObject({
      sample_collection_method: 'rollout_until_all_clients_agree_sync_weight',
      completed_episodes: 1,
      task_expected_num_repeat: 2,
      completed_tasks_details: { 'task-7': [claim.body.episode_uuid] },
      completed_tasks_client_uuids: { 'task-7': ['u-1'] },
      running_episode_details: null,
    });

    // A second episode of the task (another reward: the GRPO group carries signal), then C5 with one
    // active client: its agreement triggers the update; WEIGHT_SYNCING stays visible a while.
    const second = await post<{ episode_uuid: string; openai_api_key: string }>('/claim_episode', {
      client_uuid: 'u-1',
      episode_type: 'train',
      discard_episode_timeout: 60,
    });
    await http(t.worker.url, 'POST', `${base()}/v1/chat/completions`, {
      token: second.body.openai_api_key,
      body: { messages: [{ role: 'user', content: 'hi' }] },
    });
    await post('/end_episode', {
      client_uuid: 'u-1',
      episode_uuid: second.body.episode_uuid,
      task_id: 'task-7',
      workflow_output: { reward: 0, metadata: { task_id: 'task-7' } },
    });
    const before = t.worker.swarm.step;
    const agreedAt = Date.now();
    expect((await post('/agree_sync_weight', { client_uuid: 'u-1' })).body).toEqual({
      success: true,
      failure_reason: '',
    });
    while (t.worker.swarm.step === before && Date.now() - agreedAt < 20_000)
      await new Promise((r) => setTimeout(r, 20));
    expect(t.worker.swarm.step).toBe(before + 1);
    const seen = await status();
    // The update began after the agreement, so within SYNC_HOLD_MS of it the hold must still show.
    if (Date.now() - agreedAt < SYNC_HOLD_MS - 200) expect(seen).toBe('ENGINE.WEIGHT_SYNCING');
    expect((await get('/get_engine_status')).body['global_step']).toBe(before + 1);

    const open = await http<{ episodeId: string }>(t.worker.url, 'POST', '/swarm/v1/episodes', {
      token: TEST_TOKENS.join,
      body: { clientId: 'ours', kind: 'eval' },
    });
    expect((await post('/stop_engine', {})).body).toEqual({ success: true });
    expect(await status()).toBe('ENGINE.OFFLINE');
    expect(t.worker.swarm.findEpisode(open.body.episodeId)?.status).toBe('aborted');
    expect(
      (
        await post('/abort_episode', {
          client_uuid: 'u-1',
          episode_uuid: 'ep_unknown0000',
          workflow_output: { reward: 0 },
          task_id: '',
        })
      ).body,
    ).toEqual({ success: true });
  });

  it('validates the reward of end_episode as the native end does (#19 §4), and the group still trains', async () => {
    const w = await startFakeWorker(
      { agentjetCompat: true, training: { strategy: 'C2', batch: 1, groupSize: 2, checkpointEvery: 0 } },
      { engine: { reply: scriptedReply } },
    );
    try {
      const call = (path: string, body: unknown) => http(w.worker.url, 'POST', `${base()}${path}`, { body });
      expect((await call('/start_engine', {})).status).toBe(200);
      const episodes: { episode_uuid: string; openai_api_key: string }[] = [];
      for (let i = 0; i < 2; i++) {
        const c = await call('/claim_episode', {
          client_uuid: 'u-r',
          episode_type: 'train',
          discard_episode_timeout: 60,
        });
        const ep = c.body as { episode_uuid: string; openai_api_key: string };
        await http(w.worker.url, 'POST', `${base()}/v1/chat/completions`, {
          token: ep.openai_api_key,
          body: { messages: [{ role: 'user', content: 'hi' }] },
        });
        episodes.push(ep);
      }
      const end = (ep: { episode_uuid: string }, reward: string) =>
        http(w.worker.url, 'POST', `${base()}/end_episode`, {
          body: `{"client_uuid":"u-r","episode_uuid":"${ep.episode_uuid}","task_id":"g","workflow_output":{"reward":${reward},"metadata":{}}}`,
        });
      for (const reward of ['1e300', '-1e300', '1000001']) {
        const refused = await end(episodes[0]!, reward);
        expect(refused.status, reward).toBe(400);
        expect(refused.body).toMatchObject({ error: { code: 'invalid_request' } });
        expect(String((refused.body as { detail: string }).detail)).toMatch(/must be between -1000000 and 1000000/);
      }
      expect(w.worker.swarm.findEpisode(episodes[0]!.episode_uuid)?.status).toBe('open');
      const before = w.worker.swarm.step;
      expect((await end(episodes[0]!, '1')).status).toBe(200);
      expect((await end(episodes[1]!, '0')).status).toBe(200);
      const t0 = Date.now();
      while (w.worker.swarm.step === before && Date.now() - t0 < 20_000) await new Promise((r) => setTimeout(r, 20));
      expect(w.worker.swarm.step).toBe(before + 1);
    } finally {
      await w.stop();
    }
  });
});
