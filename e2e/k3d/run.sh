#!/usr/bin/env bash
# Runs the e2e suite against a real k3d cluster (a real kubelet in place of
# kubesim). Used by the GitHub workflows; needs Docker, k3d, kubectl and jq.
#   e2e/k3d/run.sh rancher/k3s:v1.36.4-k3s1
set -euo pipefail
image=${1:?usage: e2e/k3d/run.sh IMAGE}
here=$(cd "$(dirname "$0")" && pwd)
name=attune-e2e
args=(--image "$image" --wait --timeout 300s --no-lb)
if [[ $image == *v1.32.* ]]; then
  args+=(--volume "$here/k3s-1.32-config.yaml:/etc/rancher/k3s/config.yaml@server:0")
fi
k3d cluster delete "$name" >/dev/null 2>&1 || true
k3d cluster create "$name" "${args[@]}"
trap 'k3d cluster delete "$name" >/dev/null 2>&1 || true' EXIT
kubectl wait --for=condition=Ready nodes --all --timeout=180s
E2E_EXTERNAL=1 "$here/../run.sh"
