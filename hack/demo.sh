#!/usr/bin/env bash
# `make demo`: the main job on the embedded default. Brings up a real local
# Kubernetes control plane (1.36 unless --k8s), starts attune-manager in Auto
# against an over-provisioned `web` Deployment and shows, through kubectl and
# the manager's own /metrics, the recommendation from real Prometheus data
# and the pods right-sized in place (restartCount 0), with the policy's
# Events and history; idle workloads are left alone.
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
run=${ATTUNE_RUN:-$here/e2e/.run}; export ATTUNE_RUN="$run"  # hack/cluster.sh keeps its state there
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

# Numbers as people read them (hack/readable.jq): millicores, Mi/Gi, percent;
# the pod spec holds the recommender's exact bytes (e.g. 187904820).
readable=$(cat "$here/hack/readable.jq")
pods_view() {
  k -n demo get pods -l app=web -o json | jq -r "$readable"'["POD", "SPEC_CPU", "SPEC_MEM", "APPLIED_CPU", "APPLIED_MEM", "RESTARTS"],
    (.items[] | .spec.containers[0].resources.requests as $s | (.status.containerStatuses[0] // {}) as $st
     | [.metadata.name, ($s.cpu | readable_cpu), ($s.memory | readable_memory), ($st.resources.requests.cpu | readable_cpu),
        ($st.resources.requests.memory | readable_memory), ($st.restartCount // 0 | tostring)])
    | map(if . == "" then "<none>" else . end) | @tsv' | column -t -s "$(printf '\t')"
}

if [ ! -x "$manager" ]; then
  step "attune-manager is not built ($manager): make build image, then make demo"
  exit 1
fi

step "Usage the recommender reads: real PromQL against Prometheus (kubesim's simulated cAdvisor series)"
sleep 5
curl -sf "$PROMETHEUS_URL/api/v1/query" --data-urlencode 'query=sum by (pod) (rate(container_cpu_usage_seconds_total{namespace="demo",pod=~"web-.*"}[30s]))' \
  | jq -r '.data.result[] | "\(.metric.pod)  cpu \(.value[1] | tonumber * 1000 | floor)m"'

step "attune-manager in Auto: recommend from Prometheus, then right-size in place"
k apply -f "$here/deploy/kustomize/base/crd/" >/dev/null
k wait --for=condition=Established crd/attunepolicies.attune.io --timeout=30s >/dev/null
# base+9 is the cluster's Pushgateway: the manager takes the two ports after it.
port=$(( ${ATTUNE_PORT_BASE:-16440} + 10 ))
# The manager runs in its image (make image), as a cluster runs it: podman,
# read-only, non-root, no capabilities, as the ServiceAccount
# attune-system/attune-manager with the RBAC of deploy/kustomize
# (e2e/image-lane). Without podman or the image: the host binary.
image="attune/attune-manager:$("$here/hack/version.sh")"
if [ -z "${ATTUNE_MANAGER:-}" ] && command -v podman >/dev/null && podman image exists "$image"; then
  export E2E_MANAGER_IMAGE=$image CLUSTER_DIR="$run/cluster" KUBECTL="$run/cluster/bin/kubectl"
  manager="$here/e2e/image-lane/attune-manager"
  echo "attune-manager in its image $image, as system:serviceaccount:attune-system:attune-manager"
fi
"$manager" --kubeconfig "$KUBECONFIG" --metrics-bind-address "127.0.0.1:$port" --metrics-secure=false \
  --health-probe-bind-address "127.0.0.1:$((port + 1))" --log-format text --allow-local-metrics-addresses \
  > "$demo/manager.log" 2>&1 &
mgr_pid=$!
# The demo's windows are short (10 s query steps, 3 data points, a 1 m
# cooldown and safety watch) so it right-sizes within about a minute; the
# defaults (5 m steps, 48 points, 1 h cooldown, 5 m watch) are untouched.
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
  memory: {allowDecrease: true}
  updateStrategy: {type: Auto, cooldown: 1m, safetyObservationPeriod: 1m}
YAML
echo "before (read with kubectl):"
pods_view
started=$(date +%s)
resized() {
  k -n demo get pods -l app=web -o json | jq -e '[.items[] | select(.status.phase == "Running")] | length == 3 and
    all(.[]; .spec.containers[0].resources.requests.cpu != "500m" and
             .status.containerStatuses[0].resources.requests.cpu == .spec.containers[0].resources.requests.cpu)' >/dev/null
}
for _ in $(seq 240); do resized && break; sleep 0.5; done
if resized; then echo; echo "after $(( $(date +%s) - started )) s (read with kubectl):"; else echo; echo "not right-sized within 2 minutes; see $demo/manager.log"; fi
pods_view

step "Why that size: the recommendation and its explanation (status.recommendations, read with kubectl)"
k -n demo get attunepolicy demo -o json | jq -r "$readable"'.status.recommendations[]? | select(.workload == "web") | .containers[] |
  "  \(.name): cpu \(.current.cpuRequest | readable_cpu) -> \(.recommended.cpuRequest | readable_cpu), memory \(.current.memoryRequest | readable_memory) -> \(.recommended.memoryRequest | readable_memory), confidence \(.confidence | readable_percent) (full at 7 days of data), \(.dataPoints) points",
  "    cpu:    p95 \(.explanation.cpu.rawPercentile | readable_cpu) x (1 + \(.explanation.cpu.overhead)%) = \(.explanation.cpu.afterOverhead | readable_cpu); x \(.explanation.cpu.confidenceFactor * 100 | round / 100) (confidence \(.explanation.cpu.confidence | readable_percent)) = \(.explanation.cpu.afterConfidence | readable_cpu); bounds \(.explanation.cpu.afterBounds | readable_cpu); change filter \(.explanation.cpu.afterChangeFilter | readable_cpu) \(.explanation.cpu.changeFilterApplied // "")",
  "    memory: p99 \(.explanation.memory.rawPercentile | readable_memory) x (1 + \(.explanation.memory.overhead)%) = \(.explanation.memory.afterOverhead | readable_memory); x \(.explanation.memory.confidenceFactor * 100 | round / 100) = \(.explanation.memory.afterConfidence | readable_memory); change filter \(.explanation.memory.afterChangeFilter | readable_memory) \(.explanation.memory.changeFilterApplied // ""); final \(.explanation.memory.final | readable_memory) \(.explanation.memory.finalAdjustment // "")"'

step "What Attune says about it: the policy, its Events and status.resizeHistory"
k -n demo get attunepolicy demo
echo
k -n demo get events.events.k8s.io --field-selector regarding.kind=AttunePolicy,regarding.name=demo \
  -o custom-columns=REASON:.reason,TYPE:.type,NOTE:.note --sort-by=.metadata.creationTimestamp | cut -c1-160
echo
k -n demo get attunepolicy demo -o json | jq -r "$readable"'.status.resizeHistory[]? | .resource as $r
  | "\(.timestamp)  \(.workload)/\(.container)  \($r)  \(.from | readable_history($r)) -> \(.to | readable_history($r))  \(.result)"'
echo
k -n demo get attunepolicy demo -o json | jq -c '{workloads: .status.workloads, idleWorkloads: [.status.idleWorkloads[]? | "\(.workload)/\(.reason)"], conditions: [.status.conditions[]? | "\(.type)=\(.status) \(.reason)"]}'
echo
echo "the manager's own counters:"
curl -sf "http://127.0.0.1:$port/metrics" | grep -E '^attune_(resize_total|resize_duration_seconds_count|workload_idle)' || true
