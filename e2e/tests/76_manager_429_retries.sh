#!/usr/bin/env bash
# Real 429s: a second, small control plane whose kube-apiserver admits two
# requests at a time (--max-requests-inflight 1, --max-mutating-requests-inflight 1).
# Under API Priority and Fairness that total is shared by priority levels, and
# system:masters (our admin kubeconfig) is exempt, so the manager runs as what
# it is in production: the attune-manager ServiceAccount with the RBAC from
# deploy/kustomize (which this also proves sufficient), its token in a
# kubeconfig, and a FlowSchema that puts it in a priority level that rejects
# instead of queueing. Its eleven informers' first lists, discovery and status
# writes then meet 429s; the manager retries them (its metrics count both)
# and still converges. The cluster is torn down on exit.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
require_local "starts a second local control plane"
require_manager

run429=${ATTUNE_429_RUN:-$(mktemp -d /tmp/attune-429.XXXXXX)}
base429=${ATTUNE_429_PORT_BASE:-$(extra_port_base 5000)}
cluster429() { ATTUNE_RUN=$run429 CLUSTER_DIR=$run429/cluster ATTUNE_PORT_BASE=$base429 "$REPO_ROOT/hack/cluster.sh" "$@"; }
at_exit "cluster429 down >/dev/null 2>&1"
log "starting a 1-node control plane with max-requests-inflight 1 in $run429"
cluster429 up --k8s "$K8S_MINOR" --nodes 1 --no-prometheus --max-requests-inflight 1 --max-mutating-requests-inflight 1 \
  >"$run429/up.log" 2>&1 || { tail -20 "$run429/up.log" >&2; fail "the throttled control plane did not come up"; }
export KUBECONFIG=$run429/cluster/kubeconfig  # k and the manager now talk to it

apply_policy_crd
ns=e2e-429-$RANDOM  # goes away with the cluster
k create namespace "$ns" >/dev/null
wait_until 60 k -n "$ns" get serviceaccount default || fail "no default serviceaccount in $ns"
k -n "$ns" apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: parked, labels: {tier: web}}
spec:
  replicas: 0
  selector: {matchLabels: {app: parked}}
  template:
    metadata: {labels: {app: parked}}
    spec: {containers: [{name: app, image: attune.local/pause:1}]}
---
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: web}
spec: {targetRef: {kind: Deployment, selector: {matchLabels: {tier: web}}}, cpu: {}, memory: {}}
YAML

# The manager's identity: the ServiceAccount and RBAC of deploy/kustomize.
k apply -f "$REPO_ROOT/deploy/kustomize/base/manager/namespace.yaml" >/dev/null
for f in service_account role role_binding; do
  k -n attune-system apply -f "$REPO_ROOT/deploy/kustomize/base/rbac/$f.yaml" >/dev/null
done
k apply -f - >/dev/null <<'YAML'
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: attune-e2e-reject}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 1
    lendablePercent: 0
    limitResponse: {type: Reject}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: attune-e2e-manager}
spec:
  priorityLevelConfiguration: {name: attune-e2e-reject}
  matchingPrecedence: 500
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [{kind: ServiceAccount, serviceAccount: {name: attune-manager, namespace: attune-system}}]
    resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"], clusterScope: true}]
    nonResourceRules: [{verbs: ["*"], nonResourceURLs: ["*"]}]
YAML
wait_until 60 k -n attune-system get serviceaccount attune-manager || fail "no attune-manager ServiceAccount"
token=$(k -n attune-system create token attune-manager --duration=1h) || fail "cannot mint a token for attune-manager"
sa_kubeconfig=$run429/attune-manager.kubeconfig
kubeconfig_for_token "$token" "$sa_kubeconfig"

# Requests from the same identity share the one seat of its priority level.
# Quick requests seldom overlap by chance, so a few curl loops with the same
# token keep the seat busy while the manager starts and writes: its requests
# then reliably meet 429s (and are retried). The loops stop once it has seen some.
server=$(jq -r '.clusters[0].cluster.server' "$sa_kubeconfig")
jq -r '.clusters[0].cluster."certificate-authority-data"' "$sa_kubeconfig" | base64 -d >"$run429/ca.crt"
hog_pids=()
stop_hogs() { local p; for p in "${hog_pids[@]}"; do kill "$p" 2>/dev/null || true; done; hog_pids=(); }
at_exit stop_hogs
for i in 1 2 3 4; do
  ( while :; do curl -s --max-time 5 --cacert "$run429/ca.crt" -H "Authorization: Bearer $token" \
      "$server/api/v1/namespaces" >/dev/null; done ) &
  hog_pids+=($!)
done

# No client-side limit: the apiserver's limit is the one we want to meet.
KUBECONFIG=$sa_kubeconfig MGR_READY_TIMEOUT=120 start_manager --kube-qps 0 --workers 4 \
  --leader-elect --leader-election-namespace attune-system

# Wait for a *retried* 429: a 429 on a watch open is counted too, but the
# client leaves those to the informer's backoff rather than retrying them.
retried_429() { [ "$(metric_sum attune_kube_request_retries_total 'reason="429"')" -gt 0 ]; }
for i in $(seq 1 30); do
  retried_429 && break
  k -n "$ns" create deployment "warmup-$i" --image=attune.local/pause:1 --replicas=0 >/dev/null
  k -n "$ns" label deployment "warmup-$i" tier=web >/dev/null
  sleep 1
done
stop_hogs

too_many=$(metric_sum attune_kube_requests_total 'code="429"')
retried=$(metric_sum attune_kube_request_retries_total 'reason="429"')
log "apiserver answered 429 to ${too_many} requests; ${retried} retries for 429"
[ "${too_many%.*}" -gt 0 ] || fail "the manager never saw a 429 (attune_kube_requests_total{code=\"429\"} is 0)"
[ "${retried%.*}" -gt 0 ] || fail "429s were not retried (attune_kube_request_retries_total{reason=\"429\"} is 0)"

# Converges: every Deployment parked at zero is listed, five more included.
for i in 1 2 3 4 5; do
  k -n "$ns" create deployment "extra-$i" --image=attune.local/pause:1 --replicas=0 >/dev/null
  k -n "$ns" label deployment "extra-$i" tier=web >/dev/null
done
want=$(k -n "$ns" get deployments -l tier=web -o json | jq -c '[.items[].metadata.name] | sort')
idle_sorted() { k -n "$ns" get attunepolicy web -o json | jq -c '[(.status.idleWorkloads // [])[].workload] | sort'; }
wait_eq 120 "$want" idle_sorted || fail "idleWorkloads $(idle_sorted), want $want"
kill -0 "$MGR_PID" 2>/dev/null || fail "attune-manager died"
