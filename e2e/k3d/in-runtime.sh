#!/usr/bin/env bash
# Runs a binary built on Debian 12 (attune-manager, kubectl-attune) in the
# runtime image (e2e/k3d/runtime.Dockerfile) on the host network, with the
# paths the e2e tests pass (kubeconfig, logs, temp files) mounted at the same
# place, so the binary sees what the tests see. SIGTERM reaches it (--init,
# docker's signal proxy), which the manager tests rely on.
#   e2e/k3d/in-runtime.sh BINARY [ARGS...]
set -euo pipefail
bin=${1:?usage: e2e/k3d/in-runtime.sh BINARY [ARGS...]}; shift
[ -x "$bin" ] || { echo "in-runtime: $bin is not an executable (was it built and downloaded?)" >&2; exit 1; }
image=${ATTUNE_RUNTIME_IMAGE:-attune-runtime:local}
mounts=()
for d in "$(cd "$(dirname "$bin")" && pwd)" "$PWD" "${HOME:-/root}" /tmp "${ATTUNE_RUN:-}" "$(dirname "${KUBECONFIG:-/tmp/x}")"; do
  [ -n "$d" ] && [ -d "$d" ] && mounts+=(-v "$d:$d")
done
# HOME too: without --kubeconfig the binary reads $HOME/.kube/config, as kubectl does.
exec docker run --rm -i --init --network host -u "$(id -u):$(id -g)" "${mounts[@]}" -e KUBECONFIG -e HOME \
  -w "$PWD" "$image" "$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" "$@"
