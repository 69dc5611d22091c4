#!/usr/bin/env bash
# An idle workload is never resized (docs/resize.md): a Deployment its
# HPA holds at zero (ScaledToZero=True, with a leftover Running pod far over
# its recommendation) and one scaled to zero by hand, under an Auto policy,
# get no /resize and no eviction: the leftover pod keeps its spec, its
# generation and no tracking annotations, and the apiserver counts no
# /resize. When the HPA lets go (ScaledToZero=False) the same pod is resized,
# so the test can fail.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
require_local "an HPA status written by the test (the harness runs no HPA controller)"
require_manager
apply_policy_crd
test_namespace
oracle_begin

web_deployment held 1
web_deployment zero 0
wait_all_at 90 held app "500m/1/256Mi/512Mi" || fail "held never ran"
k -n "$ns" apply -f - >/dev/null <<'YAML'
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: held}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: held}
  minReplicas: 1
  maxReplicas: 3
  metrics:
  - type: External
    external:
      metric: {name: queue_depth}
      target: {type: AverageValue, averageValue: "10"}
YAML
hpa_zero() {  # hpa_zero True|False
  local now; now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  k -n "$ns" patch hpa held --subresource=status --type=merge -p "{\"status\":{\"currentReplicas\":1,\"desiredReplicas\":1,
    \"conditions\":[{\"type\":\"ScaledToZero\",\"status\":\"$1\",\"reason\":\"Test\",\"lastTransitionTime\":\"$now\"}]}}" >/dev/null
}
hpa_zero True
pod=$(pod_names held)
gen0=$(k -n "$ns" get pod "$pod" -o jsonpath='{.metadata.generation}')

start_manager
manual_policy idle-web held Auto '[{"name":"app","resources":{"requests":{"cpu":"200m"}}}]' '{"resizeMethod":"InPlaceOrRecreate"}' \
  '{"targetRef":{"kind":"Deployment","selector":{"matchLabels":{"tier":"web"}}}}'
idle_list() { k -n "$ns" get attunepolicy idle-web -o json | jq -c '[(.status.idleWorkloads // [])[] | "\(.workload)/\(.reason)"] | sort'; }
wait_eq 30 '["held/HPAScaledToZero","zero/WorkloadReplicasZero"]' idle_list || fail "idleWorkloads: $(idle_list)"
sleep 10
expect_eq "leftover pod spec" "$(spec_and_status held app | awk '{print $2}')" "500m/1/256Mi/512Mi"
expect_eq "leftover pod generation" "$(k -n "$ns" get pod "$pod" -o jsonpath='{.metadata.generation}')" "$gen0"
k -n "$ns" get pod "$pod" -o json | jq -e '(.metadata.annotations // {}) | keys | map(select(startswith("attune.io/"))) | length == 0' \
  >/dev/null || fail "the idle workload's pod got tracking annotations"
read -r ok bad other < <(resize_counts)
expect_eq "/resize calls for idle workloads" "$((ok + bad + other - ORACLE_OK0 - ORACLE_BAD0 - ORACLE_OTHER0))" 0
expect_eq "evictions" "$(metric_sum attune_eviction_total)" 0
log "idle for 10 s: no /resize, no eviction, no annotation on $pod"

hpa_zero False
wait_all_at 60 held app "200m/1/256Mi/512Mi" || fail "active again, yet not resized: $(spec_and_status held app)"
log "active again: resized ($(spec_and_status held app))"
oracle_check
