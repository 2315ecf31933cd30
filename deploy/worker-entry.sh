#!/bin/sh
# The swarm worker as a service (the Docker image's and the systemd unit's entry point): continues
# the run in $AGENTJET_RUN_DIR when it holds one (--resume), starts it otherwise, with any extra
# flags passed through. `exec` replaces this shell with Node, so SIGTERM/SIGINT reach the worker
# itself, which checkpoints and exits; the engine (its child) exits with it.
set -eu
cd "$(dirname "$0")/.."
run_dir="${AGENTJET_RUN_DIR:-/var/lib/agentjet/run}"
if [ -f "$run_dir/config.json" ]; then
  exec node bin/agentjet.mjs worker --resume "$run_dir" "$@"
fi
exec node bin/agentjet.mjs worker --run-dir "$run_dir" "$@"
