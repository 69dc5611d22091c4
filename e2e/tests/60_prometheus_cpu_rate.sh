#!/usr/bin/env bash
# A real Prometheus scrapes the simulated kubelet's cAdvisor-style series:
# rate(container_cpu_usage_seconds_total[1m]) follows the pod's load annotation.
# (rate over [1m] under-reads until the series is a minute old: Prometheus
# extrapolates a young series over the whole window, hence the long wait.)
. "$(dirname "$0")/../lib.sh"
require_local
test_namespace
k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: loaded
  annotations:
    sim.attune.io/load: '{"app": {"cpu": "250m", "memory": "100Mi", "throttled": 0.2}}'
spec:
  containers:
  - name: app
    image: attune.local/pause:1
    resources: {requests: {cpu: 500m, memory: 256Mi}}
YAML
wait_until 60 pod_running "$ns" loaded || fail "pod never ran"
q() { curl -sf --max-time 5 "$PROMETHEUS_URL/api/v1/query" --data-urlencode "query=$1" | jq -r '.data.result[0].value[1] // empty'; }
in_range() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v >= lo && v <= hi) }'; }
cpu_ok() { in_range "$(q "rate(container_cpu_usage_seconds_total{namespace=\"$ns\",pod=\"loaded\",container=\"app\"}[1m])")" 0.2 0.3; }
wait_until 100 cpu_ok || fail "cpu rate not ~0.25: '$(q "rate(container_cpu_usage_seconds_total{namespace=\"$ns\",pod=\"loaded\"}[1m])")'"
mem=$(q "container_memory_working_set_bytes{namespace=\"$ns\",pod=\"loaded\",container=\"app\"}")
expect_eq "working set bytes" "$mem" "104857600"
thr() { in_range "$(q "rate(container_cpu_cfs_throttled_periods_total{namespace=\"$ns\",pod=\"loaded\"}[1m]) / rate(container_cpu_cfs_periods_total{namespace=\"$ns\",pod=\"loaded\"}[1m])")" 0.15 0.25; }
wait_until 30 thr || fail "throttled ratio not ~0.2"
