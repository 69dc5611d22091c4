#!/usr/bin/env bash
# `make demo`: the main job on the embedded default. Brings up a real local
# Kubernetes control plane (1.36 unless --k8s), starts attune-manager against
# it, creates a few workloads and shows what Attune sees and does, through
# kubectl and the manager's own /metrics. Grows with each feature.
#   hack/demo.sh [--k8s 1.36] [--keep]      --keep leaves the cluster running
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
minor=1.36; keep=0
while [ $# -gt 0 ]; do
  case $1 in
    --k8s) minor=${2:?}; shift 2;;
    --keep) keep=1; shift;;
    *) echo "demo: unknown flag $1" >&2; exit 2;;
  esac
done
run="$here/e2e/.run"
demo="$run/demo"; mkdir -p "$demo"
manager=${ATTUNE_MANAGER:-$here/build/src/manager/attune-manager}
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "Kubernetes $minor: real etcd, kube-apiserver, controller-manager, scheduler; simulated nodes"
"$here/hack/cluster.sh" down >/dev/null 2>&1 || true
"$here/hack/cluster.sh" up --k8s "$minor" >/dev/null
export KUBECONFIG="$run/cluster/kubeconfig"
k() { "$run/cluster/bin/kubectl" "$@"; }
# shellcheck disable=SC1091
. "$run/cluster/env"
mgr_pid=""
cleanup() {
  [ -n "$mgr_pid" ] && kill "$mgr_pid" 2>/dev/null && wait "$mgr_pid" 2>/dev/null
  if [ $keep = 0 ]; then "$here/hack/cluster.sh" down >/dev/null 2>&1; else
    echo; echo "cluster left running: export KUBECONFIG=$KUBECONFIG; make cluster-down when done"; fi
}
trap cleanup EXIT
k version -o json | jq -r '"server " + .serverVersion.gitVersion'
k get nodes -o custom-columns=NODE:.metadata.name,CPU:.status.allocatable.cpu,MEMORY:.status.allocatable.memory,DECLARED:.status.declaredFeatures

step "Workloads: web (3 replicas, under load), batch (scaled to 0), events (HPA holds it at zero)"
k create namespace demo >/dev/null
k -n demo apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {tier: demo}}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
      annotations: {sim.attune.io/load: '{"app": {"cpu": "150m", "memory": "90Mi"}}'}
    spec:
      containers:
      - name: app
        image: attune.local/web:1
        resources:
          requests: {cpu: 500m, memory: 256Mi}
          limits: {cpu: "1", memory: 512Mi}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: batch, labels: {tier: demo}}
spec:
  replicas: 0
  selector: {matchLabels: {app: batch}}
  template:
    metadata: {labels: {app: batch}}
    spec:
      containers: [{name: job, image: attune.local/batch:1, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: events, labels: {tier: demo}}
spec:
  replicas: 1
  selector: {matchLabels: {app: events}}
  template:
    metadata: {labels: {app: events}}
    spec:
      containers: [{name: consumer, image: attune.local/events:1, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: events}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: events}
  minReplicas: 1
  maxReplicas: 5
  metrics:
  - type: External
    external:
      metric: {name: queue_depth}
      target: {type: AverageValue, averageValue: "10"}
YAML
# The HPA controller is off in the harness: write the status an HPA that
# scaled its target to zero carries (KEP-2021 condition ScaledToZero).
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
k -n demo patch hpa events --subresource=status --type=merge -p "{\"status\":{\"currentReplicas\":0,\"desiredReplicas\":0,\"conditions\":[{\"type\":\"ScaledToZero\",\"status\":\"True\",\"reason\":\"NoLoad\",\"lastTransitionTime\":\"$now\"},{\"type\":\"AbleToScale\",\"status\":\"True\",\"reason\":\"ReadyForNewScale\",\"lastTransitionTime\":\"$now\"}]}}" >/dev/null
for _ in $(seq 60); do
  [ "$(k -n demo get deploy web -o jsonpath='{.status.readyReplicas}')" = 3 ] && break; sleep 0.5
done
k -n demo get deploy,hpa
k -n demo get pods -o custom-columns=POD:.metadata.name,NODE:.spec.nodeName,QOS:.status.qosClass,CPU_REQ:.status.containerStatuses[0].resources.requests.cpu,MEM_LIM:.status.containerStatuses[0].resources.limits.memory

if [ -x "$manager" ]; then
  step "attune-manager: one io_context, informers, workers, status aggregator"
  k apply -f "$here/deploy/kustomize/base/crd/" >/dev/null
  k wait --for=condition=Established crd/attunepolicies.attune.io --timeout=30s >/dev/null
  # base+9 is the cluster's Pushgateway: the manager takes the two ports after it.
  port=$(( ${ATTUNE_PORT_BASE:-16440} + 10 ))
  # --allow-local-metrics-addresses: the harness's Prometheus listens on loopback.
  "$manager" --kubeconfig "$KUBECONFIG" --metrics-bind-address "127.0.0.1:$port" \
    --health-probe-bind-address "127.0.0.1:$((port + 1))" --log-format text --allow-local-metrics-addresses \
    > "$demo/manager.log" 2>&1 &
  mgr_pid=$!
  # A short queryStep and few points, so the demo needs a minute of data, not days.
  k -n demo apply -f - >/dev/null <<YAML
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: demo}
spec:
  targetRef: {kind: Deployment, selector: {matchLabels: {tier: demo}}}
  metricsSource:
    prometheus: {address: "$PROMETHEUS_URL"}
    queryStep: 10s
    rateWindow: 30s
    historyWindow: 1h
    minimumDataPoints: 3
  cpu: {}
  memory: {}
  updateStrategy: {type: Recommend}
YAML
  for _ in $(seq 60); do
    [ "$(k -n demo get attunepolicy demo -o json | jq '.status.idleWorkloads // [] | length')" -ge 2 ] && break; sleep 0.5
  done
  echo "capabilities the manager probed:"
  grep -m1 -i capabilit "$demo/manager.log" | cut -c1-400 || true
  echo; echo "AttunePolicy demo status.idleWorkloads (read with kubectl):"
  k -n demo get attunepolicy demo -o json | jq -c '.status.idleWorkloads[]?'
  echo; echo "manager /metrics:"
  curl -sf "http://127.0.0.1:$port/metrics" | grep -E '^attune_workload_idle' || echo "(no attune_workload_idle series)"
else
  step "attune-manager is not built ($manager); showing the cluster only"
fi

step "What Attune will do: an in-place resize through pods/resize (here by hand, with kubectl)"
pod=$(k -n demo get pods -l app=web -o jsonpath='{.items[0].metadata.name}')
k -n demo patch pod "$pod" --subresource resize --type strategic \
  -p '{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"200m"},"limits":{"cpu":"400m"}}}]}}' >/dev/null
for _ in $(seq 30); do
  [ "$(k -n demo get pod "$pod" -o jsonpath='{.status.containerStatuses[0].resources.requests.cpu}')" = 200m ] && break; sleep 0.5
done
k -n demo get pod "$pod" -o json | jq -c '{pod: .metadata.name, generation: .metadata.generation, restarts: .status.containerStatuses[0].restartCount, applied: .status.containerStatuses[0].resources}'

step "Usage the recommender reads: real PromQL against Prometheus"
sleep 5
curl -sf "$PROMETHEUS_URL/api/v1/query" --data-urlencode 'query=sum by (pod) (container_memory_working_set_bytes{namespace="demo"})' \
  | jq -r '.data.result[] | "\(.metric.pod)  working set \(.value[1]) bytes"'

if [ -n "$mgr_pid" ]; then
  step "A recommendation for web from that data (Recommend: nothing is resized)"
  echo "waiting for Prometheus to hold a minute of web's usage (150m cpu, 90Mi memory) at 10 s steps..."
  # The first recommendation comes with 3 points; a few more let rate() settle on the load.
  for _ in $(seq 240); do
    [ "$(k -n demo get attunepolicy demo -o json | jq '[.status.recommendations[]? | select(.workload == "web") | .containers[] | select(.dataPoints >= 14)] | length')" -ge 1 ] && break
    sleep 1
  done
  k -n demo get ap demo
  echo
  k -n demo describe ap demo | sed -n '/^Status:/,$p' | head -90
  echo; echo "web's app container: current -> recommended, and how (status.recommendations[].containers[].explanation):"
  k -n demo get attunepolicy demo -o json | jq -r '.status.recommendations[]? | select(.workload == "web") | .containers[] |
    "  \(.name): cpu \(.current.cpuRequest) -> \(.recommended.cpuRequest), memory \(.current.memoryRequest) -> \(.recommended.memoryRequest), confidence \(.confidence), \(.dataPoints) points",
    "    cpu:    p95 \(.explanation.cpu.rawPercentile) x (1 + \(.explanation.cpu.overhead)%) = \(.explanation.cpu.afterOverhead); x \(.explanation.cpu.confidenceFactor) (confidence \(.explanation.cpu.confidence)) = \(.explanation.cpu.afterConfidence); bounds \(.explanation.cpu.afterBounds); change filter \(.explanation.cpu.afterChangeFilter) \(.explanation.cpu.changeFilterApplied // "")",
    "    memory: p99 \(.explanation.memory.rawPercentile) x (1 + \(.explanation.memory.overhead)%) = \(.explanation.memory.afterOverhead); x \(.explanation.memory.confidenceFactor) = \(.explanation.memory.afterConfidence); change filter \(.explanation.memory.afterChangeFilter) \(.explanation.memory.changeFilterApplied // ""); final \(.explanation.memory.final) \(.explanation.memory.finalAdjustment // "")"'
  echo; echo "manager /metrics (recommendations):"
  curl -sf "http://127.0.0.1:$port/metrics" | grep -E '^attune_(recommendation_|confidence)' || echo "(no recommendation series)"
fi
