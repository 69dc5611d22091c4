# Shared helpers for e2e tests. Source it from a test script:
#   . "$(dirname "$0")/../lib.sh"
# Tests observe the cluster only through the kubectl built with the control
# plane (never through Attune's own client). Exit codes: 0 pass, 77 skip,
# anything else fail.
set -euo pipefail
E2E_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$E2E_ROOT/.." && pwd)
ATTUNE_RUN=${ATTUNE_RUN:-$E2E_ROOT/.run}
CLUSTER_DIR=${CLUSTER_DIR:-$ATTUNE_RUN/cluster}
export KUBECONFIG=${KUBECONFIG:-$CLUSTER_DIR/kubeconfig}
KUBECTL=${KUBECTL:-$CLUSTER_DIR/bin/kubectl}
[ -x "$KUBECTL" ] || { echo "e2e: no cluster at $CLUSTER_DIR (hack/cluster.sh up)" >&2; exit 1; }
# shellcheck disable=SC1091
[ -f "$CLUSTER_DIR/env" ] && . "$CLUSTER_DIR/env"   # K8S_MINOR, K8S_VERSION, ports

k() { "$KUBECTL" "$@"; }
log() { echo "  [$(basename "$0" .sh)] $*" >&2; }
fail() { echo "  FAIL [$(basename "$0" .sh)]: $*" >&2; exit 1; }
skip() { echo "  SKIP [$(basename "$0" .sh)]: $*" >&2; exit 77; }

# wait_until SECONDS CMD...: re-runs CMD every 0.5 s until it succeeds.
wait_until() {
  local deadline=$(( $(date +%s) + $1 )); shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.5
  done
}

# expect_eq WHAT GOT WANT
expect_eq() { [ "$2" == "$3" ] || fail "$1: got '$2', want '$3'"; }

# test_namespace: a fresh namespace for this test, deleted when it exits.
test_namespace() {
  local ns
  ns="e2e-$(basename "$0" .sh | tr '_' '-' | tr -cd 'a-z0-9-' | cut -c1-40)-$RANDOM"
  k create namespace "$ns" >/dev/null
  # The default ServiceAccount is created asynchronously by the controller manager.
  wait_until 30 k -n "$ns" get serviceaccount default || fail "no default serviceaccount in $ns"
  trap "k delete namespace $ns --wait=false >/dev/null 2>&1 || true" EXIT
  echo "$ns"
}
