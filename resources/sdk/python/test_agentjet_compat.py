"""A client written against AgentJet's SwarmClient contract trains against a real worker started with
`--agentjet-compat true` (the engine and built-in model): offline → sync_train_config → start_engine,
episodes claimed, played through the OpenAI route under the prefixed base URL and ended, agreement to
sync (rollout_until_all_clients_agree_sync_weight), a real training step, stop_engine.
Run from the repo root: gpu-worker/engine/.venv/bin/python -m pytest -q resources/sdk/python"""

import os
import sys
import time

import pytest
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from agentjet_contract_client import ContractError, ContractSwarmClient  # noqa: E402
from worker_process import run_worker  # noqa: E402

ADMIN, JOIN = "aj-compat-test-admin-0123456789", "aj-compat-test-join-0123456789"

# What an AgentJetJob's config looks like (a few of its many settings; most have no counterpart here).
JOB_CONFIG = {
    "ajet": {
        "project_name": "compat_test",
        "experiment_name": "calc",
        "backbone": "verl",
        "model": {"path": "Qwen/Qwen2.5-7B-Instruct"},
        "swarm_mode_sample_collection_method": "rollout_until_all_clients_agree_sync_weight",
        "data": {"train_batch_size": 1, "max_prompt_length": 3000},
        "rollout": {"num_repeat": 2, "temperature": 1.0, "max_response_length_in_one_turn": 24},
        "trainer_common": {
            "algorithm": {"adv_estimator": "grpo"},
            "optim": {"lr": 1.0e-4},
            "use_kl_loss": False,
            "kl_loss_coef": 0.002,
            "n_gpus_per_node": 8,
        },
    }
}


@pytest.fixture(scope="module")
def worker():
    yield from run_worker(ADMIN, JOIN, ["--agentjet-compat", "true"], "aj-compat-", 90)


def play(client, task_id, reward):
    """One episode: claim, two calls through the prefixed OpenAI route, end with `reward`."""
    episode_uuid, base_url, api_key = client.begin_episode(discard_episode_timeout=120, task_id=task_id)
    assert base_url.startswith(client.server_url + "/v1")
    messages = [
        {"role": "system", "content": "You are a calculator agent. Use the calc tool, then answer as #### <number>."},
        {"role": "user", "content": "What is 12 + 7?"},
    ]
    first = client.chat(base_url, api_key, messages)
    messages.append(first["choices"][0]["message"])
    messages.append({"role": "user", "content": "Answer as #### <number>."})
    client.chat(base_url, api_key, messages)
    assert client.can_continue_episode(episode_uuid) is True
    client.end_episode(task_id, episode_uuid, reward, is_success=reward > 0, log_metrics={"turns": 2.0})
    assert client.can_continue_episode(episode_uuid) is False
    return episode_uuid


def test_agentjet_contract_client_trains(worker):
    client = ContractSwarmClient(f"{worker}/agentjet/{JOIN}")
    try:
        status, info = client.get_engine_status()
        assert status == "ENGINE.OFFLINE" and info["global_step"] == 0

        synced = client.sync_train_config(yaml.safe_dump(JOB_CONFIG, sort_keys=False))
        assert synced["success"] is True
        assert (
            synced["config"]["strategy"] == "C5"
            and synced["config"]["groupSize"] == 2
            and synced["config"]["defaultMaxTokens"] == 24
        )
        assert "ajet.model.path" in synced["ignored"] and "ajet.trainer_common.n_gpus_per_node" in synced["ignored"]
        client.start_engine()

        # One task group with different rewards (a GRPO signal), then the agreement: all (one) clients agreed.
        ids = [play(client, "calc-compat-1", 1.0), play(client, "calc-compat-1", 0.0)]
        stat = client.get_rollout_stat()
        assert stat["sample_collection_method"] == "rollout_until_all_clients_agree_sync_weight"
        assert stat["completed_episodes"] == 2 and sorted(stat["completed_tasks_details"]["calc-compat-1"]) == sorted(
            ids
        )
        assert stat["completed_tasks_client_uuids"]["calc-compat-1"] == [client.client_uuid] * 2
        assert client.agree_sync_weight() is True

        t0 = time.monotonic()
        while client.get_engine_status()[1]["global_step"] < 1 and time.monotonic() - t0 < 60:
            time.sleep(0.5)
        assert client.get_engine_status()[1]["global_step"] == 1
        assert client.wait_until(["ENGINE.ROLLING"], 30) == "ENGINE.ROLLING"
        assert client.get_rollout_stat()["completed_episodes"] == 0

        # Abort and refusals keep AgentJet's semantics.
        episode_uuid, _, _ = client.begin_episode(task_id="calc-compat-2")
        assert client.abort_episode(episode_uuid) is True
        with pytest.raises(ContractError, match="not in claimed status"):
            client.end_episode("calc-compat-2", episode_uuid, 1.0)
        with pytest.raises(ContractError, match="400.*stop_engine"):
            client._post("/sync_train_config", {"yaml_as_string": "ajet: {}"})  # the engine is rolling

        client.stop_engine()
        assert client.get_engine_status()[0] == "ENGINE.OFFLINE"
    finally:
        client.close()
