#!/usr/bin/env bash
# Version-best behaviour (docs/resize.md), decided on probed facts where the API
# offers them:
#  - a memory-limit decrease: 1.32-1.33 clamp it (MemoryLimitClamped, and
#    ResizeUnchanged when nothing else was left to change; never the
#    kubelet's ResizeDeferred); 1.34+ apply it (a version-locked fact);
#  - a pod with spec.resources (where the apiserver keeps the field) whose
#    container request must outgrow the envelope: where its node declares
#    in-place pod-level resize (1.36, 1.37) the envelope is raised in the
#    same /resize and applied; where it does not (1.34, 1.35) the pod is
#    skipped with ResizeSkipped and a history entry Held, reason
#    envelope_constraint (it was never sent: docs/resize.md).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
require_manager
apply_policy_crd
test_namespace
oracle_begin

web_deployment memlim 1
k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: env}
spec:
  replicas: 1
  selector: {matchLabels: {app: env}}
  template:
    metadata: {labels: {app: env}}
    spec:
      resources:
        requests: {cpu: "1", memory: 512Mi}
        limits: {cpu: "2", memory: 1Gi}
      containers:
      - name: app
        image: $POD_IMAGE
        resources: {requests: {cpu: 500m, memory: 256Mi}}
YAML
wait_all_at 90 memlim app "500m/1/256Mi/512Mi" || fail "memlim never ran: $(spec_and_status memlim app)"
env_running() { local p; p=$(pod_names env | head -1); [ -n "$p" ] && pod_running "$ns" "$p"; }
wait_until 60 env_running || fail "env never ran"
env_pod=$(pod_names env | head -1)
kept=$(k -n "$ns" get pod "$env_pod" -o json | jq -r '.spec.resources != null')
declared=$(k get node "$(k -n "$ns" get pod "$env_pod" -o jsonpath='{.spec.nodeName}')" -o json \
  | jq -r '(.status.declaredFeatures // []) | index("InPlacePodLevelResourcesVerticalScaling") != null')
log "Kubernetes $K8S_MINOR: apiserver keeps spec.resources: $kept; the pod's node declares in-place pod-level resize: $declared"

start_manager
manual_policy memlim memlim Auto '[{"name":"app","resources":{"limits":{"memory":"384Mi"}}}]'
manual_policy env env Auto '[{"name":"app","resources":{"requests":{"cpu":"1500m"}}}]' '{}' \
  '{"cpu":{"controlledValues":"RequestsOnly"},"memory":{"controlledValues":"RequestsOnly"}}'

memlim_check() {
  case $K8S_MINOR in
    1.32|1.33) has_events memlim MemoryLimitClamped && has_events memlim ResizeUnchanged;;
    *) all_at memlim app "500m/1/256Mi/384Mi";;
  esac
}
wait_until 60 memlim_check || fail "memory-limit decrease on $K8S_MINOR: $(spec_and_status memlim app); events: $(events_of memlim MemoryLimitClamped) $(events_of memlim ResizeUnchanged)"
[ "$(event_count memlim ResizeDeferred)" = 0 ] || fail "Attune emitted ResizeDeferred (the kubelet's reason)"
case $K8S_MINOR in
  1.32|1.33) all_at memlim app "500m/1/256Mi/512Mi" || fail "the clamped limit moved: $(spec_and_status memlim app)"
             log "memory-limit decrease clamped: $(events_of memlim MemoryLimitClamped | head -1)";;
  *) log "memory-limit decrease applied in place: $(spec_and_status memlim app)";;
esac

envelope_of() { k -n "$ns" get pod "$env_pod" -o json | jq -c '{spec: .spec.resources, status: .status.resources, app: .spec.containers[0].resources.requests.cpu, applied: .status.containerStatuses[0].resources.requests.cpu}'; }
if [ "$kept" != true ]; then
  log "this apiserver drops spec.resources (PodLevelResources off): no envelope to raise or skip"
elif [ "$declared" = true ]; then
  raised() { envelope_of | jq -e '.app == "1500m" and .applied == "1500m" and .spec.requests.cpu == "1500m" and .status.requests.cpu == "1500m" and .spec.limits.cpu == "2"' >/dev/null; }
  wait_until 60 raised || fail "envelope not raised with the container: $(envelope_of)"
  log "envelope raised in the same /resize and applied: $(envelope_of)"
  [ "$(metric_sum attune_envelope_raised_total 'resource="cpu"')" -ge 1 ] || fail "attune_envelope_raised_total did not count it"
else
  wait_until 60 has_history env Held envelope_constraint || fail "no envelope_constraint skip: $(history_of env)"
  has_events env ResizeSkipped || fail "no ResizeSkipped Event for the envelope"
  expect_eq "container request left alone" "$(envelope_of | jq -r .app)" 500m
  log "envelope cannot be raised in place here: skipped ($(events_of env ResizeSkipped | head -1))"
fi
oracle_check
