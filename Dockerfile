# syntax=docker/dockerfile:1
# The AgentJet swarm worker for a CUDA GPU box (not built or run in this repository's CI — it has
# no Docker and no GPU; see docs/worker.md, "Running the worker as a service").
#
#   docker build -t agentjet-worker .
# It serves HTTPS with a self-signed certificate made in the run folder on first start (its SHA-256
# fingerprint is printed; clients pin it — docs/remote-workers.md); give --tls-cert/--tls-key (and
# drop --tls self-signed from the entry point) to serve your own.
#
#   docker run --gpus all -p 8321:8321 -v agentjet-runs:/var/lib/agentjet \
#     -e AGENTJET_ADMIN_TOKEN=… -e AGENTJET_JOIN_TOKEN=… --stop-timeout 180 agentjet-worker \
#     --model /models/Qwen2.5-0.5B-Instruct --lr 1e-6
#
# tini is PID 1: it forwards SIGTERM (docker stop) to the worker and reaps orphans; the entry
# script execs Node, so the worker receives the signal itself, checkpoints and exits (give it
# --stop-timeout / stop_grace_period above the worker's --stop-timeout, default 120 s).
FROM nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04

ENV DEBIAN_FRONTEND=noninteractive \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    ELECTRON_SKIP_BINARY_DOWNLOAD=1 \
    ONNXRUNTIME_NODE_INSTALL=skip

# Python 3.10 with venv, tini, and Node 20 (NodeSource).
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl gnupg openssl python3 python3-venv python3-pip tini \
 && curl -fsSL https://deb.nodesource.com/setup_20.x | bash - \
 && apt-get install -y --no-install-recommends nodejs \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/agentjet

# The engine's virtualenv from requirements.txt (PyPI's Linux torch wheels are CUDA builds).
COPY gpu-worker/engine/requirements.txt gpu-worker/engine/requirements.txt
RUN python3 -m venv gpu-worker/engine/.venv \
 && gpu-worker/engine/.venv/bin/pip install -r gpu-worker/engine/requirements.txt

# npm packages the worker needs at run time (tsx runs the TypeScript; no Electron, no dev tools).
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

COPY . .
RUN useradd --system --create-home --home-dir /var/lib/agentjet agentjet \
 && chown -R agentjet /var/lib/agentjet
USER agentjet

ENV AGENTJET_RUN_DIR=/var/lib/agentjet/run
VOLUME ["/var/lib/agentjet"]
EXPOSE 8321
ENTRYPOINT ["/usr/bin/tini", "--", "/opt/agentjet/deploy/worker-entry.sh", "--host", "0.0.0.0", "--port", "8321", "--tls", "self-signed"]
CMD []
