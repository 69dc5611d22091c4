#!/usr/bin/env bash
# Faults (docs/resize.md): kube-apiserver is killed and restarted in the middle
# of a rollout (six replicas resized one at a time: increases, with
# maxConcurrentResizes 1). No resize is lost or done twice: every replica
# ends at the target, each pod's generation moved by exactly one resize
# (1.33+ bump it per resize), one Success and one Resized Event per pod, and
# the apiserver answered no /resize with a 4xx (counted before and after the
# restart, since its counters start over).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
require_local "restarts the harness's kube-apiserver"
require_manager
apply_policy_crd
test_namespace
oracle_begin

k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: roll}
spec:
  replicas: 6
  selector: {matchLabels: {app: roll}}
  template:
    metadata: {labels: {app: roll}}
    spec:
      containers:
      - name: app
        image: $POD_IMAGE
        resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {cpu: "1", memory: 512Mi}}
YAML
at_100() { all_at roll app "100m/1/64Mi/512Mi" && [ "$(pod_names roll | wc -l)" = 6 ]; }
wait_until 90 at_100 || fail "pods never ran: $(spec_and_status roll app)"
gens0=$(pods_of roll | jq -c '[.items[] | {(.metadata.name): .metadata.generation}] | add')

start_manager
manual_policy roll roll Auto '[{"name":"app","resources":{"requests":{"cpu":"150m"}}}]'
done_count() { spec_and_status roll app | awk '$3 == "150m/1/64Mi/512Mi"' | wc -l; }
for _ in $(seq 1 120); do [ "$(done_count)" -ge 2 ] && break; sleep 0.25; done
[ "$(done_count)" -ge 2 ] || fail "the rollout did not start: $(spec_and_status roll app)"
[ "$(done_count)" -lt 6 ] || fail "the rollout finished before the restart (nothing was mid-rollout)"
log "restarting kube-apiserver with $(done_count) of 6 replicas resized"
oracle_pause
api_port=${API_SERVER##*:}
CLUSTER_DIR=$CLUSTER_DIR ATTUNE_RUN=$ATTUNE_RUN ATTUNE_PORT_BASE=$((api_port - 3)) \
  "$REPO_ROOT/hack/cluster.sh" restart kube-apiserver >/dev/null 2>&1 || fail "hack/cluster.sh restart kube-apiserver failed"
wait_until 60 k get --raw /readyz || fail "kube-apiserver not ready after the restart"
oracle_begin

wait_all_at 120 roll app "150m/1/64Mi/512Mi" || fail "not every replica resized after the restart: $(spec_and_status roll app)"
wait_eq 60 6 history_count roll Success || fail "want 6 Success entries: $(history_of roll)"
wait_eq 30 6 event_count roll Resized || fail "want 6 Resized Events: $(events_of roll Resized)"
distinct=$(events_of roll Resized | sed -E 's/^pod ([^ ]+) .*/\1/' | sort -u | wc -l)
expect_eq "pods with a Resized Event" "$distinct" 6
if [ "$K8S_MINOR" != 1.32 ]; then
  twice=$(pods_of roll | jq --argjson g0 "$gens0" '[.items[] | select(.metadata.generation != ($g0[.metadata.name] + 1))] | length')
  expect_eq "pods whose generation moved by other than one resize" "$twice" 0
fi
kill -0 "$MGR_PID" 2>/dev/null || fail "attune-manager died"
oracle_check
