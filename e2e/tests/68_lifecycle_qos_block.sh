#!/usr/bin/env bash
# QoS (docs/lifecycle.md): a BestEffort workload (no resources at
# all) under a Canary policy whose candidate sets a cpu request would become
# Burstable, which no in-place resize may do. The policy gets
# ResizeBlocked=True InPlaceResizeWouldChangeQoSClass with a message that
# says what to change in the template, the lifecycle stays at step 0, and no
# /resize is ever sent (the apiserver's own request counter) nor any pod
# changed.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
. "$(dirname "$0")/66_lifecycle_lib.bash"
lifecycle_test

k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: bare}
spec:
  replicas: 2
  selector: {matchLabels: {app: bare}}
  template:
    metadata: {labels: {app: bare}}
    spec:
      containers: [{name: app, image: $POD_IMAGE}]
YAML
qos() { pods_of bare | jq -r '[.items[] | select(.status.phase == "Running") | .status.qosClass] | unique | join(",")'; }
wait_eq 90 BestEffort qos || fail "the pods never ran BestEffort: $(qos)"
read -r ok0 bad0 _ < <(resize_counts)
start_manager
canary_policy bare bare '[{"name":"app","resources":{"requests":{"cpu":"100m"}}}]' '{"steps":[{"percent":50},{"percent":100}]}'

wait_eq 60 "True InPlaceResizeWouldChangeQoSClass" condition_of bare ResizeBlocked \
  || fail "no ResizeBlocked InPlaceResizeWouldChangeQoSClass: $(condition_of bare ResizeBlocked); $(lc_entry bare bare)"
msg=$(k -n "$ns" get attunepolicy bare -o json | jq -r '.status.conditions[] | select(.type == "ResizeBlocked") | .message')
log "ResizeBlocked: $msg"
[[ $msg == *"BestEffort to Burstable"* && $msg == *"add initial resources to the workload template"* ]] \
  || fail "the message does not say what to change: $msg"
expect_eq "phase" "$(lc bare bare .phase)" ValidationRunning
expect_eq "step" "$(lc bare bare .step)" 0
lc bare bare .message | grep -q "blocked before any resize" || fail "status message: $(lc bare bare .message)"

# Never patched: give the manager a few more passes, then count.
sleep 10
read -r ok1 bad1 _ < <(resize_counts)
expect_eq "/resize requests answered 2xx" "$((ok1 - ok0))" 0
expect_eq "/resize requests answered 4xx" "$((bad1 - bad0))" 0
expect_eq "QoS class" "$(qos)" BestEffort
expect_eq "pod resources" "$(pods_of bare | jq -c '[.items[].spec.containers[0].resources // {}] | unique')" '[{}]'
expect_eq "tracked pods" "$(pods_of bare | jq '[.items[] | select(.metadata.labels["attune.io/tracked"] != null)] | length')" 0
