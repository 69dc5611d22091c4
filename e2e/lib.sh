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
if [ -n "${E2E_EXTERNAL:-}" ]; then
  # A real cluster (k3d in the GitHub workflows): the caller's KUBECONFIG and kubectl.
  KUBECTL=${KUBECTL:-kubectl}
  K8S_VERSION=$("$KUBECTL" version -o json | jq -r .serverVersion.gitVersion)
  K8S_MINOR=$(sed -E 's/^v([0-9]+\.[0-9]+).*/\1/' <<<"$K8S_VERSION")
else
  export KUBECONFIG=${KUBECONFIG:-$CLUSTER_DIR/kubeconfig}
  KUBECTL=${KUBECTL:-$CLUSTER_DIR/bin/kubectl}
  [ -x "$KUBECTL" ] || { echo "e2e: no cluster at $CLUSTER_DIR (hack/cluster.sh up)" >&2; exit 1; }
  # shellcheck disable=SC1091
  . "$CLUSTER_DIR/env"   # K8S_MINOR, K8S_VERSION, ports
fi

k() { "$KUBECTL" "$@"; }

# at_exit CMD: runs CMD when the test exits, newest first, whatever else
# fails. The one cleanup mechanism: helpers that create objects register
# their own deletion here, so tests never restate each other's traps.
_at_exit_cmds=()
_run_at_exit() { local i; for (( i=${#_at_exit_cmds[@]}-1; i>=0; i-- )); do eval "${_at_exit_cmds[$i]}" || true; done; }
trap _run_at_exit EXIT
at_exit() { _at_exit_cmds+=("$1"); }
# require_local: the test needs the local harness (simulated nodes, loopback
# webhook URL, the harness's Prometheus); skipped on a real cluster.
# A test's own extra control plane sits OFFSET ports above the suite's, so
# that suites with their own ATTUNE_PORT_BASE can run side by side.
extra_port_base() { echo $(( ${ATTUNE_PORT_BASE:-16440} + $1 )); }
require_local() { [ -z "${E2E_EXTERNAL:-}" ] || skip "needs the local control plane (${1:-simulated nodes})"; }
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

# wait_eq SECONDS WANT CMD...: re-runs CMD every 0.5 s until it prints WANT.
# Use it rather than `wait_until N test "$(cmd)" = x`, which runs cmd once.
wait_eq() {
  local deadline=$(( $(date +%s) + $1 )) want=$2; shift 2
  until [ "$("$@" 2>/dev/null)" = "$want" ]; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.5
  done
}

# expect_eq WHAT GOT WANT
expect_eq() { [ "$2" == "$3" ] || fail "$1: got '$2', want '$3'"; }

# kubeconfig_for_token TOKEN FILE [NAMESPACE]: a kubeconfig for the current
# cluster that authenticates with TOKEN (a ServiceAccount's, from kubectl
# create token), its context in NAMESPACE when given.
kubeconfig_for_token() {
  k config view --raw --minify -o json | jq --arg t "$1" --arg ns "${3:-}" '
    {apiVersion: "v1", kind: "Config", "current-context": "attune",
     clusters: [{name: "c", cluster: .clusters[0].cluster}],
     users: [{name: "attune-manager", user: {token: $t}}],
     contexts: [{name: "attune", context: ({cluster: "c", user: "attune-manager"}
       + (if $ns == "" then {} else {namespace: $ns} end))}]}' >"$2"
}

# test_namespace: sets $ns to a fresh namespace for this test, deleted when the
# test exits. Call it directly, not in $(...): the cleanup belongs to the test.
test_namespace() {
  ns="e2e-$(basename "$0" .sh | tr '_' '-' | tr -cd 'a-z0-9-' | cut -c1-40)-$RANDOM"
  k create namespace "$ns" >/dev/null
  at_exit "k delete namespace $ns --wait=false >/dev/null 2>&1"
  # The default ServiceAccount is created asynchronously by the controller manager.
  wait_until 30 k -n "$ns" get serviceaccount default || fail "no default serviceaccount in $ns"
}

# resize_view NS POD -> "<mechanism> <state>"
#   mechanism: field (1.32 status.resize), conditions (1.33+), none
#   state: Deferred | Infeasible | InProgress | InProgressError | Proposed | Applied | Pending
# Applied means every container's status resources equal its spec (cpu/memory).
resize_view() {
  k -n "$1" get pod "$2" -o json | jq -r '
    def cond(t): [(.status.conditions // [])[] | select(.type == t and .status == "True")] | .[0];
    def norm: {requests: ((.requests // {}) | with_entries(select(.key == "cpu" or .key == "memory"))),
               limits: ((.limits // {}) | with_entries(select(.key == "cpu" or .key == "memory")))};
    def applied: ([.spec.containers[] | {(.name): (.resources | norm)}] | add)
                 == ([(.status.containerStatuses // [])[] | {(.name): ((.resources // {}) | norm)}] | add);
    if cond("PodResizePending") then "conditions " + cond("PodResizePending").reason
    elif cond("PodResizeInProgress") then "conditions InProgress" + (if cond("PodResizeInProgress").reason == "Error" then "Error" else "" end)
    elif (.status.resize // "") != "" then "field " + .status.resize
    elif applied then "none Applied" else "none Pending" end'
}

# expected_resize_mechanism: how this minor reports a resize in progress.
expected_resize_mechanism() { if [ "$K8S_MINOR" = 1.32 ]; then echo field; else echo conditions; fi; }

# sim_node NAME CPU MEMORY [DECLARED-FEATURES-JSON]: a dedicated simulated node
# (kubesim adopts it), tainted so the scheduler keeps other tests' pods off it. It declares the same status.declaredFeatures as the
# harness's own nodes unless told otherwise ('[]' for none): from 1.36 the
# apiserver checks the pod's own node before a pod-level resize. Deleted when
# the test exits.
sim_node() {
  local features=${4:-}
  [ -n "$features" ] || features=$(k get nodes -l attune.io/kubesim=true -o json \
    | jq -c '[.items[] | select(.metadata.name | startswith("sim-node-")) | .status.declaredFeatures // empty][0] // []')
  # --validate=warn: apiservers before 1.35 have no declaredFeatures field
  # and drop it rather than refuse the Node.
  k apply --validate=warn -f - >/dev/null 2>&1 <<YAML
apiVersion: v1
kind: Node
metadata:
  name: $1
  labels: {attune.io/kubesim: "true", kubernetes.io/hostname: "$1", kubernetes.io/os: linux}
spec:
  taints: [{key: attune.io/e2e-dedicated, value: "true", effect: NoSchedule}]
status:
  capacity: {cpu: "$2", memory: "$3", pods: "110"}
  allocatable: {cpu: "$2", memory: "$3", pods: "110"}
  declaredFeatures: $features
YAML
  at_exit "k delete node $1 --wait=false >/dev/null 2>&1"
  wait_until 30 node_is_ready "$1" || fail "kubesim did not adopt node $1"
}
node_is_ready() { [ "$(k get node "$1" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" = True ]; }

# pod_running NS POD: Running with applied status resources.
pod_running() {
  k -n "$1" get pod "$2" -o json | jq -e '.status.phase == "Running" and (.status.containerStatuses // [] | length > 0) and all(.status.containerStatuses[]; .resources != null)' >/dev/null
}

# require_built PATH WHAT: the test needs a binary from the C++ build. Under
# `make test` (E2E_REQUIRE_BUILD=1) a missing binary is a failure, so a broken
# build can never pass as a skip; run by hand, it is a skip.
require_built() {
  [ -x "$1" ] && return 0
  if [ "${E2E_REQUIRE_BUILD:-0}" = 1 ]; then fail "$2 is not built at $1"; fi
  skip "$2 is not built at $1 (make build)"
}

# The plugin from the C++ build (kubectl-attune), for the tests that drive it.
ATTUNE_CLI=${ATTUNE_CLI:-$REPO_ROOT/${BUILD:-build}/src/cli/kubectl-attune}
require_cli() { require_built "$ATTUNE_CLI" kubectl-attune; }
