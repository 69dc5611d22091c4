#!/usr/bin/env bash
# HARNESS CHECK (proves the simulated kubelet, not Attune): kubesim's load
# model throttles a container whose applied cpu limit is below its simulated
# demand, and the real Prometheus scrapes it. Demand 250m under a 100m limit
# runs at 0.1 cores and is throttled in (250-100)/250 = 60% of its CFS
# periods; the same demand under a 1-core limit is not throttled; an in-place
# resize of the limit to 1 core ends the throttling. The lifecycle's
# throttling analysis (docs/lifecycle.md) is tested against exactly these series.
. "$(dirname "$0")/../lib.sh"
require_local
test_namespace
pod() {  # pod NAME CPU_LIMIT
  k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: $1
  annotations:
    sim.attune.io/load: '{"app": {"cpu": "250m"}}'
spec:
  containers:
  - name: app
    image: attune.local/pause:1
    resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {cpu: $2}}
YAML
}
pod tight 100m
pod roomy "1"
wait_until 60 pod_running "$ns" tight || fail "pod tight never ran"
wait_until 60 pod_running "$ns" roomy || fail "pod roomy never ran"

q() { curl -sf --max-time 5 "$PROMETHEUS_URL/api/v1/query" --data-urlencode "query=$1" | jq -r '.data.result[0].value[1] // empty'; }
in_range() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v >= lo && v <= hi) }'; }
sel() { echo "namespace=\"$ns\",pod=\"$1\",container=\"app\""; }
ratio() {  # ratio POD WINDOW: throttled periods / periods, as the lifecycle's analysis queries them
  q "sum(increase(container_cpu_cfs_throttled_periods_total{$(sel "$1")}[$2])) / sum(increase(container_cpu_cfs_periods_total{$(sel "$1")}[$2]))"
}
usage() { q "rate(container_cpu_usage_seconds_total{$(sel "$1")}[$2])"; }
ratio_in() { in_range "$(ratio "$1" "$2")" "$3" "$4"; }
usage_in() { in_range "$(usage "$1" "$2")" "$3" "$4"; }

wait_until 60 ratio_in tight 30s 0.55 0.65 || fail "tight: throttled ratio not ~0.6: '$(ratio tight 30s)'"
wait_until 30 ratio_in roomy 30s 0 0.001 || fail "roomy: throttled ratio not 0: '$(ratio roomy 30s)'"
wait_until 60 usage_in tight 30s 0.07 0.13 || fail "tight: usage not capped at the 100m limit: '$(usage tight 30s)'"
wait_until 60 usage_in roomy 30s 0.2 0.3 || fail "roomy: usage not ~0.25: '$(usage roomy 30s)'"
log "100m limit: ratio $(ratio tight 30s), usage $(usage tight 30s); 1-core limit: ratio $(ratio roomy 30s)"

# Raise the limit in place: once kubesim reports it applied, no more throttling.
k -n "$ns" patch pod tight --subresource resize --type strategic \
  -p '{"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":"1"}}}]}}' >/dev/null
applied_limit() { k -n "$ns" get pod tight -o jsonpath='{.status.containerStatuses[0].resources.limits.cpu}'; }
wait_eq 30 1 applied_limit || fail "the resize to a 1-core limit was never applied: '$(applied_limit)'"
wait_until 60 ratio_in tight 10s 0 0.001 || fail "tight still throttled after the resize: '$(ratio tight 10s)'"
wait_until 60 usage_in tight 10s 0.2 0.3 || fail "tight usage not ~0.25 after the resize: '$(usage tight 10s)'"
