#!/usr/bin/env bash
# Runs the e2e suite against a real k3d cluster (a real kubelet in place of
# kubesim). Used by the GitHub workflows; needs Docker, k3d, kubectl and jq.
#   e2e/k3d/run.sh rancher/k3s:v1.36.4-k3s1
# The manager tests (70-99) need attune-manager from this commit's build:
# ATTUNE_MANAGER_BIN (default build/src/manager/attune-manager). It runs in the
# runtime image next to the cluster (runtime.Dockerfile, in-runtime.sh). A
# missing binary fails here, loudly, rather than skipping every apply test.
set -euo pipefail
image=${1:?usage: e2e/k3d/run.sh IMAGE}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
name=attune-e2e

export ATTUNE_MANAGER_BIN=${ATTUNE_MANAGER_BIN:-$repo/build/src/manager/attune-manager}
if [ ! -x "$ATTUNE_MANAGER_BIN" ]; then
  echo "e2e/k3d/run.sh: FAIL: attune-manager is not built at $ATTUNE_MANAGER_BIN." >&2
  echo "  The workflow must build it (hack/build.sh build) or download the build job's artifact first;" >&2
  echo "  without it every resize test would only skip." >&2
  exit 1
fi
docker build -q -t attune-runtime:local -f "$here/runtime.Dockerfile" "$here" >/dev/null
"$here/in-runtime.sh" "$ATTUNE_MANAGER_BIN" --help >/dev/null \
  || { echo "e2e/k3d/run.sh: FAIL: attune-manager does not run in the runtime image" >&2; exit 1; }
export ATTUNE_MANAGER=$here/attune-manager  # the wrapper the tests start
export E2E_REQUIRE_BUILD=1                  # a missing binary fails a test, never skips it
# A real kubelet pulls images: pods run the pause image (any resources fit it).
export E2E_POD_IMAGE=${E2E_POD_IMAGE:-registry.k8s.io/pause:3.10}

args=(--image "$image" --wait --timeout 300s --no-lb)
if [[ $image == *v1.32.* ]]; then
  args+=(--volume "$here/k3s-1.32-config.yaml:/etc/rancher/k3s/config.yaml@server:0")
fi
k3d cluster delete "$name" >/dev/null 2>&1 || true
k3d cluster create "$name" "${args[@]}"
trap 'k3d cluster delete "$name" >/dev/null 2>&1 || true' EXIT
kubectl wait --for=condition=Ready nodes --all --timeout=180s
E2E_EXTERNAL=1 "$here/../run.sh"
