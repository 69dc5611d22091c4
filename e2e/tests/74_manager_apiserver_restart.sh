#!/usr/bin/env bash
# Watches resume after kube-apiserver is killed and restarted: objects created
# after the restart reach the manager's caches (pods counted exactly, so
# nothing is lost or duplicated) and a new idle Deployment still reaches the
# policy status, without restarting the manager.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
require_local "restarts the harness's kube-apiserver"
require_manager
apply_policy_crd
test_namespace

pods() {  # pods PREFIX COUNT
  jq -n --arg p "$1" --argjson n "$2" '{apiVersion: "v1", kind: "List", items: [range(0; $n) | {
      apiVersion: "v1", kind: "Pod", metadata: {name: "\($p)-\(.)", labels: {app: "restart"}},
      spec: {schedulerName: "attune-e2e-unscheduled", containers: [{name: "app", image: "attune.local/pause:1"}]}}]}' \
    | k -n "$ns" create -f - >/dev/null
}
cluster_pods() { k get pods -A --no-headers 2>/dev/null | wc -l | tr -d ' '; }
cached_pods() { local v; v=$(metric_value 'attune_kube_informer_objects{resource="pods"}'); echo "${v%.*}"; }
cache_matches_kubectl() { [ "$(cached_pods)" = "$(cluster_pods)" ]; }
idle_is() { [ "$(idle_names)" = "$1" ]; }

# No enabled feature reads pods yet: ask for their informer.
start_manager --start-informers pods
apply_web_policy
pods before 20
idle_deployment before
wait_until 30 cache_matches_kubectl || fail "before the restart: cache $(cached_pods), kubectl $(cluster_pods)"
wait_until 30 idle_is '["before"]' || fail "before the restart: idleWorkloads $(idle_names)"
restarts_before=$(metric_sum attune_kube_watch_restarts_total 'resource="pods"')

log "restarting kube-apiserver"
api_port=${API_SERVER##*:}
CLUSTER_DIR=$CLUSTER_DIR ATTUNE_RUN=$ATTUNE_RUN ATTUNE_PORT_BASE=$((api_port - 3)) \
  "$REPO_ROOT/hack/cluster.sh" restart kube-apiserver >/dev/null 2>&1 || fail "hack/cluster.sh restart kube-apiserver failed"
wait_until 60 k get --raw /readyz || fail "kube-apiserver not ready after the restart"

pods after 30
idle_deployment after
wait_until 90 cache_matches_kubectl || fail "after the restart: pod informer holds $(cached_pods), kubectl lists $(cluster_pods)"
log "after the restart: pod informer holds $(cached_pods) = kubectl's count"
wait_until 60 idle_is '["after","before"]' || fail "after the restart: idleWorkloads $(idle_names), want after and before"

restarts_after=$(metric_sum attune_kube_watch_restarts_total 'resource="pods"')
[ "$restarts_after" -gt "$restarts_before" ] || fail "the pod watch never noticed the restart (restarts $restarts_before -> $restarts_after)"
log "pod watch restarts $restarts_before -> $restarts_after, relists $(metric_sum attune_kube_relists_total 'resource="pods"')"
kill -0 "$MGR_PID" 2>/dev/null || fail "attune-manager died"
manager_ready || fail "attune-manager is not ready after the restart"
