#!/usr/bin/env bash
# `make bench-resize`: the executor against the real apiserver with kubesim
# (docs/resize.md): PODS pods (default 1,000) in WORKLOADS Deployments are
# resized in place to Applied by one Auto policy (a Manual source: one
# deterministic target, a decrease, so no gate holds it), at the manager's
# default client QPS. Prints the wall time from the policy to the last pod
# Applied, the apiserver requests the manager made per pod (its own
# attune_kube_requests_total, by verb, and the apiserver's /resize count),
# and the manager's RSS. Figures, not assertions. Brings its own cluster up
# (ATTUNE_PORT_BASE, default 16460) and down; not part of make test.
#   hack/bench-resize.sh [--k8s 1.36] [--keep]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
minor=1.36; keep=0
while [ $# -gt 0 ]; do
  case $1 in
    --k8s) minor=${2:?}; shift 2;;
    --keep) keep=1; shift;;
    *) echo "bench-resize: unknown flag $1" >&2; exit 2;;
  esac
done
pods=${PODS:-1000}; workloads=${WORKLOADS:-100}
replicas=$(( pods / workloads ))
export ATTUNE_PORT_BASE=${ATTUNE_PORT_BASE:-16460}
export ATTUNE_RUN=${ATTUNE_RUN:-$here/e2e/.run-bench}
export CLUSTER_DIR=$ATTUNE_RUN/cluster
manager=${ATTUNE_MANAGER:-$here/build/src/manager/attune-manager}
[ -x "$manager" ] || { echo "bench-resize: $manager is not built (make build)" >&2; exit 2; }
mkdir -p "$ATTUNE_RUN"
log() { echo "bench-resize: $*" >&2; }

nodes=$(( (pods + 99) / 100 + 1 ))
log "cluster $minor with $nodes simulated nodes (8 cpu, 32Gi each)"
"$here/hack/cluster.sh" up --k8s "$minor" --nodes "$nodes" --node-cpu 8 --node-memory 32Gi --no-prometheus >/dev/null
mgr_pid=""
cleanup() {
  [ -n "$mgr_pid" ] && kill "$mgr_pid" 2>/dev/null && wait "$mgr_pid" 2>/dev/null
  [ "$keep" = 1 ] || "$here/hack/cluster.sh" down >/dev/null 2>&1 || true
}
trap cleanup EXIT
export KUBECONFIG=$CLUSTER_DIR/kubeconfig
k() { "$CLUSTER_DIR/bin/kubectl" "$@"; }
k create namespace bench >/dev/null
k apply -f "$here/deploy/kustomize/base/crd/" >/dev/null
k wait --for=condition=Established crd/attunepolicies.attune.io --timeout=60s >/dev/null

log "$workloads Deployments x $replicas replicas"
for i in $(seq 1 "$workloads"); do
  cat <<YAML
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: w$i, labels: {bench: resize}}
spec:
  replicas: $replicas
  selector: {matchLabels: {app: w$i}}
  template:
    metadata: {labels: {app: w$i}}
    spec:
      containers:
      - name: app
        image: attune.local/bench:1
        resources: {requests: {cpu: 60m, memory: 64Mi}, limits: {cpu: 200m, memory: 128Mi}}
YAML
done | k -n bench apply -f - >/dev/null
running() { k -n bench get pods --field-selector=status.phase=Running --no-headers 2>/dev/null | wc -l | tr -d ' '; }
for _ in $(seq 1 600); do [ "$(running)" -ge "$pods" ] && break; sleep 2; done
log "$(running) pods Running"

port=$(( ATTUNE_PORT_BASE + 9 ))
"$manager" --kubeconfig "$KUBECONFIG" --metrics-bind-address "127.0.0.1:$port" --metrics-secure=false --log-format text \
  >"$ATTUNE_RUN/bench-manager.log" 2>&1 &
mgr_pid=$!
for _ in $(seq 1 600); do curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
metrics() { curl -fsS "http://127.0.0.1:$port/metrics"; }
requests() { metrics | awk '/^attune_kube_requests_total\{/ { s += $2 } END { print s + 0 }'; }
resizes() {  # the apiserver's own count of /resize answered 2xx
  k get --raw /metrics | awk '/^apiserver_request_total\{/ && /resource="pods"/ && /subresource="resize"/ && /code="2/ { s += $NF } END { print s + 0 }'
}
rss() { awk '/^VmRSS|^VmHWM/ { printf "%s %d MiB  ", $1, $2 / 1024 }' "/proc/$mgr_pid/status"; }
sleep 3
req0=$(requests); rz0=$(resizes)
log "manager ready: $(rss)"

k -n bench apply -f - >/dev/null <<'YAML'
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: bench}
spec:
  targetRef: {kind: Deployment, selector: {matchLabels: {bench: resize}}}
  metricsSource: {manual: {containers: [{name: app, resources: {requests: {cpu: 40m}}}]}}
  cpu: {}
  memory: {}
  updateStrategy: {type: Auto}
YAML
start=$(date +%s.%N)
applied() {
  k -n bench get pods -o json | jq '[.items[] | select(.status.phase == "Running" and
    .spec.containers[0].resources.requests.cpu == "40m" and
    (.status.containerStatuses[0].resources.requests.cpu // "") == "40m")] | length'
}
n=0
for _ in $(seq 1 900); do n=$(applied); [ "$n" -ge "$pods" ] && break; sleep 1; done
end=$(date +%s.%N)
sleep 2
req1=$(requests); rz1=$(resizes)
wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
echo "pods Applied:        $n of $pods (Kubernetes $minor, kubesim, default --kube-qps 20 / --kube-burst 30)"
echo "wall time:           $wall s from the policy to the last pod Applied ($(awk -v p="$n" -v w="$wall" 'BEGIN { printf "%.1f", p / w }') pods/s)"
echo "apiserver requests:  $((req1 - req0)) by the manager, $(awk -v r="$((req1 - req0))" -v p="$n" 'BEGIN { printf "%.2f", r / p }') per pod; /resize answered 2xx: $((rz1 - rz0))"
echo "  by verb:           $(metrics | awk '/^attune_kube_requests_total\{/ { match($0, /verb="[a-z]+"/); v = substr($0, RSTART + 6, RLENGTH - 7); s[v] += $2 } END { for (v in s) printf "%s=%d ", v, s[v] }')"
echo "manager memory:      $(rss)(after the run, executor running, $pods pods cached)"
echo "attune_resize_total: $(metrics | awk '/^attune_resize_total\{/ && /result="success"/ { s += $2 } END { print s + 0 }') success"
