"""A swarm client written against AgentJet's SwarmClient contract (the public AgentJet repository's
ajet/tuner_lib/experimental/swarm_client.py and interchange_utils.py): the same routes, JSON field
names, status strings and retry decisions, over httpx, with no AgentJet dependency. It is what the
compat tests drive a worker started with `--agentjet-compat true` with: its server URL is
`http://host:port/agentjet/<join-token>`.
"""

import re
import time
import uuid

import httpx

# AgentJet's client waits this long between engine-status looks while it waits for a status.
STATUS_POLL_S = 5.0
CLAIM_RETRY_S = 2.0


class ContractError(RuntimeError):
    pass


class ContractSwarmClient:
    def __init__(self, server_url, poll_s=STATUS_POLL_S):
        self.server_url = server_url.rstrip("/")
        self.client_uuid = str(uuid.uuid4())
        self.poll_s = poll_s
        self.http = httpx.Client(timeout=30)

    def close(self):
        self.http.close()

    def _post(self, path, body):
        res = self.http.post(f"{self.server_url}{path}", json=body)
        if res.status_code >= 400:
            raise ContractError(f"SwarmClient error {res.status_code}: {res.text}")
        return res.json()

    def get_engine_status(self):
        res = self.http.get(f"{self.server_url}/get_engine_status", timeout=10)
        res.raise_for_status()
        data = res.json()
        return data.get("engine_status", "unknown"), data

    def wait_until(self, statuses, timeout_s=120):
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout_s:
            status, _ = self.get_engine_status()
            if status in statuses:
                return status
            time.sleep(self.poll_s)
        raise TimeoutError(f"engine status never became one of {statuses}")

    def sync_train_config(self, yaml_str):
        status, _ = self.get_engine_status()
        if status != "ENGINE.OFFLINE":
            raise ContractError(
                f"Cannot sync train config when engine is NOT ENGINE.OFFLINE. (current status: {status})"
            )
        return self._post("/sync_train_config", {"yaml_as_string": yaml_str})

    def start_engine(self):
        result = self._post("/start_engine", {})
        if not result.get("success"):
            raise ContractError("Failed to start training engine")
        self.wait_until(["ENGINE.ROLLING"])

    def begin_episode(self, discard_episode_timeout=240, episode_type="train", task_id=None, timeout_s=120):
        """(episode_uuid, base_url, api_key) once a claim succeeds; waits and retries as AgentJet's client does."""
        throttle = (
            {"ratio": 1.5, "expected_batch_size": 1, "expected_num_repeat": 1, "current_task_id": task_id}
            if task_id
            else None
        )
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout_s:
            self.wait_until(["ENGINE.ROLLING"], timeout_s)
            data = self._post(
                "/claim_episode",
                {
                    "client_uuid": self.client_uuid,
                    "episode_type": episode_type,
                    "discard_episode_timeout": discard_episode_timeout,
                    "throttle_policy": throttle,
                },
            )
            if data["success"]:
                base_url = re.sub(r"^https?://[^/]+", self.server_url, data["openai_base_url"])
                return data["episode_uuid"], base_url, data["openai_api_key"]
            time.sleep(CLAIM_RETRY_S)
        raise TimeoutError("no episode could be claimed")

    def end_episode(self, task_id, episode_uuid, reward, is_success=None, log_metrics=None):
        data = self._post(
            "/end_episode",
            {
                "client_uuid": self.client_uuid,
                "episode_uuid": episode_uuid,
                "task_id": task_id,
                "declare_client_active": True,
                "workflow_output": {
                    "reward": reward,
                    "is_success": is_success,
                    "metadata": {"task_id": task_id},
                    "log_metrics": log_metrics or {},
                },
            },
        )
        if not data["success"]:
            raise ContractError(f"Failed to end episode {episode_uuid}")

    def abort_episode(self, episode_uuid):
        return self._post(
            "/abort_episode",
            {
                "client_uuid": self.client_uuid,
                "episode_uuid": episode_uuid,
                "task_id": "",
                "workflow_output": {"reward": 0.0, "metadata": {}},
            },
        )["success"]

    def can_continue_episode(self, episode_uuid):
        return self._post("/can_continue_episode", {"client_uuid": self.client_uuid, "episode_uuid": episode_uuid})[
            "can_continue"
        ]

    def agree_sync_weight(self, timeout_s=120):
        """Registers the agreement (retrying while rejected), then waits for the sync to show."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout_s:
            status, _ = self.get_engine_status()
            if status not in ("ENGINE.ROLLING", "ENGINE.ROLLING_POST"):
                return False
            data = self._post("/agree_sync_weight", {"client_uuid": self.client_uuid})
            if data["success"]:
                self.wait_until(["ENGINE.ROLLING_POST", "ENGINE.WEIGHT_SYNCING"], timeout_s)
                return True
            time.sleep(CLAIM_RETRY_S)
        raise TimeoutError("agree_sync_weight was never accepted")

    def get_rollout_stat(self):
        res = self.http.get(f"{self.server_url}/get_current_batch_rollout_pool_information", timeout=10)
        res.raise_for_status()
        return res.json()

    def stop_engine(self):
        if not self._post("/stop_engine", {}).get("success"):
            raise ContractError("Failed to stop training engine")
        self.wait_until(["ENGINE.OFFLINE"])

    def chat(self, base_url, api_key, messages, **kw):
        """POST {base_url}/chat/completions as the openai package does (Bearer api_key)."""
        res = self.http.post(
            f"{base_url}/chat/completions",
            json={"model": "agentjet", "messages": messages, **kw},
            headers={"authorization": f"Bearer {api_key}"},
        )
        if res.status_code >= 400:
            raise ContractError(f"chat/completions {res.status_code}: {res.text}")
        return res.json()
