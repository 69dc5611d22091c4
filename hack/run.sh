#!/usr/bin/env bash
# make run: attune-manager against the current kubeconfig, in the foreground.
# Applies the Attune CRDs first (the policy informer needs it), then runs
# with text logs and /metrics /healthz /readyz on 127.0.0.1:8080.
#
#   hack/run.sh [extra manager flags...]
#   KUBECONFIG=e2e/.run/cluster/kubeconfig hack/run.sh --log-level debug
# Environment: BUILD (default build), KUBECTL (default: the harness's kubectl
# if a local cluster is up, else kubectl on PATH), ATTUNE_METRICS_ADDR.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
bin=$here/$build/src/manager/attune-manager
[ -x "$bin" ] || { echo "run: $bin is not built (make build)" >&2; exit 1; }

cluster_dir=${CLUSTER_DIR:-${ATTUNE_RUN:-$here/e2e/.run}/cluster}
if [ -z "${KUBECONFIG:-}" ] && [ ! -f "$HOME/.kube/config" ] && [ -f "$cluster_dir/kubeconfig" ]; then
  export KUBECONFIG=$cluster_dir/kubeconfig  # no kubeconfig of one's own: the local harness's
fi
kubectl=${KUBECTL:-}
if [ -z "$kubectl" ]; then
  if [ -x "$cluster_dir/bin/kubectl" ]; then kubectl=$cluster_dir/bin/kubectl; else kubectl=kubectl; fi
fi
command -v "$kubectl" >/dev/null || { echo "run: no kubectl (set KUBECTL)" >&2; exit 1; }

echo "run: applying the Attune CRDs (context $("$kubectl" config current-context))" >&2
"$kubectl" apply -f "$here/deploy/kustomize/base/crd/" >/dev/null
"$kubectl" wait --for=condition=Established crd/attunepolicies.attune.io --timeout=60s >/dev/null

exec "$bin" \
  --metrics-bind-address "${ATTUNE_METRICS_ADDR:-127.0.0.1:8080}" --metrics-secure=false \
  --log-format text --log-level info \
  --kube-qps 20 --kube-burst 30 --workers 2 \
  "$@"
