#!/usr/bin/env bash
# End to end (docs/recommender.md): attune-manager recommends N workloads (default 200)
# from the harness's real Prometheus. Prints the time until every workload
# has a recommendation, the number of Prometheus queries and their total
# time (from the manager's own attune_prometheus_query_duration_seconds), the
# status writes, and the manager's RSS. A figure, not an assertion.
#   ATTUNE_PORT_BASE=... hack/cluster.sh up --k8s 1.36
#   ATTUNE_PORT_BASE=... hack/bench-recommend.sh [N]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-200}
run=${ATTUNE_RUN:-$here/e2e/.run}
export KUBECONFIG=$run/cluster/kubeconfig
# shellcheck disable=SC1091
. "$run/cluster/env"
k() { "$run/cluster/bin/kubectl" "$@"; }
manager=${ATTUNE_MANAGER:-$here/build/src/manager/attune-manager}
[ -x "$manager" ] || { echo "bench-recommend: $manager is not built" >&2; exit 2; }
ns=bench-recommend
log=$run/bench-recommend-manager.log
mgr=""
cleanup() {
  [ -n "$mgr" ] && kill "$mgr" 2>/dev/null && wait "$mgr" 2>/dev/null
  k delete namespace "$ns" --wait=false >/dev/null 2>&1 || true
}
trap cleanup EXIT
k apply -f "$here/deploy/kustomize/base/crd/" >/dev/null
k wait --for=condition=Established crd/attunepolicies.attune.io --timeout=60s >/dev/null
k create namespace "$ns" >/dev/null

echo "creating $n Deployments (1 pod each, app + side containers, simulated load)..." >&2
{
  for i in $(seq -w 1 "$n"); do
    cat <<YAML
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: w$i, labels: {bench: recommend}}
spec:
  replicas: 1
  selector: {matchLabels: {app: w$i}}
  template:
    metadata:
      labels: {app: w$i}
      annotations: {sim.attune.io/load: '{"app": {"cpu": "$((20 + 10#$i % 50))m", "memory": "$((32 + 10#$i % 64))Mi"}, "side": {"cpu": "5m", "memory": "8Mi"}}'}
    spec:
      containers:
      - {name: app, image: attune.local/app:1, resources: {requests: {cpu: 10m, memory: 32Mi}}}
      - {name: side, image: attune.local/side:1, resources: {requests: {cpu: 5m, memory: 8Mi}}}
YAML
  done
} | k -n "$ns" apply -f - >/dev/null
for _ in $(seq 240); do
  [ "$(k -n "$ns" get pods --field-selector=status.phase=Running -o name | wc -l)" -ge "$n" ] && break
  sleep 1
done
echo "$(k -n "$ns" get pods --field-selector=status.phase=Running -o name | wc -l) pods running; waiting 45 s for Prometheus to hold a few points..." >&2
sleep 45

"$manager" --kubeconfig "$KUBECONFIG" --metrics-bind-address 127.0.0.1:0 --metrics-secure=false --log-format text \
  --allow-local-metrics-addresses --workers "${WORKERS:-2}" >"$log" 2>&1 &
mgr=$!
port=""
for _ in $(seq 100); do
  port=$(sed -n 's/.*serving \/metrics .*address=127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log" | head -1)
  [ -n "$port" ] && break; sleep 0.1
done
metrics() { curl -fsS --max-time 5 "http://127.0.0.1:$port/metrics"; }
sum_of() { metrics | awk -v n="$1" 'index($1, n) == 1 { s += $2 } END { printf "%.3f", s + 0 }'; }
for _ in $(seq 100); do curl -fsS --max-time 1 "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.2; done

start=$(date +%s.%N)
k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: bench}
spec:
  targetRef: {kind: Deployment, selector: {matchLabels: {bench: recommend}}}
  metricsSource:
    prometheus: {address: "$PROMETHEUS_URL"}
    queryStep: 10s
    rateWindow: 30s
    historyWindow: 1h
    minimumDataPoints: 3
  cpu: {}
  memory: {}
YAML
peak=0
while :; do
  got=$(k -n "$ns" get attunepolicy bench -o jsonpath='{.status.workloads.withRecommendations}' 2>/dev/null || true)
  rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$mgr/status")
  [ "$rss" -gt "$peak" ] && peak=$rss
  [ "${got:-0}" -ge "$n" ] && break
  if awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { exit !(a - b > 600) }'; then echo "bench-recommend: only ${got:-0} of $n after 600 s" >&2; exit 1; fi
  sleep 0.5
done
elapsed=$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { printf "%.3f", a - b }')
queries=$(sum_of attune_prometheus_query_duration_seconds_count)
qtime=$(sum_of attune_prometheus_query_duration_seconds_sum)
errors=$(sum_of attune_prometheus_query_errors_total)
writes=$(metrics | awk '$1 ~ /^attune_policy_status_writes_total\{result="ok"\}/ { print $2 }')
cpu_s=$(awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$mgr/stat")
printf 'workloads with recommendations: %s of %s in %.1f s (policy created -> status says so)\n' "$got" "$n" "$elapsed"
printf 'prometheus range queries: %.0f (errors %.0f), total time %.2f s, mean %.1f ms\n' "$queries" "$errors" "$qtime" \
  "$(awk -v t="$qtime" -v q="$queries" 'BEGIN { print (q > 0 ? t * 1000 / q : 0) }')"
printf 'status writes: %s; manager CPU (user+sys since start): %s s\n' "${writes:-0}" "$cpu_s"
printf 'manager RSS: peak %d kB while recommending, %d kB now\n' "$peak" "$(awk '/^VmRSS:/ { print $2 }' "/proc/$mgr/status")"
