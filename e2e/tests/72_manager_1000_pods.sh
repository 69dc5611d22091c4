#!/usr/bin/env bash
# List and watch of 1,000 pods: the manager's pod informer cache holds exactly
# what kubectl lists, whether the pods arrive by watch (created while it runs),
# by a fresh manager's initial state (a WatchList where the minor serves it, a
# paged list of 500 per page elsewhere) or leave by watch (deleted). No
# enabled feature reads pods yet, so the test asks for the informer
# (--start-informers pods).
# The pods name a scheduler that does not exist, so they stay Pending and cost
# the harness nothing but apiserver and etcd work.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
require_manager
apply_policy_crd
test_namespace
N=1000

cluster_pods() { k get pods -A --no-headers 2>/dev/null | wc -l | tr -d ' '; }
cached_pods() { metric_value 'attune_kube_informer_objects{resource="pods"}'; }
cache_matches_kubectl() {
  local want got
  want=$(cluster_pods); got=$(cached_pods)
  [ "${got%.*}" = "$want" ]
}
expect_cache_matches() {  # expect_cache_matches WHAT
  wait_until 60 cache_matches_kubectl || fail "$1: pod informer holds $(cached_pods), kubectl lists $(cluster_pods)"
  log "$1: pod informer holds $(cached_pods) = kubectl's count"
}

start_manager --kube-qps 50 --kube-burst 100 --start-informers pods

# 1. By watch.
jq -n --argjson n "$N" '{apiVersion: "v1", kind: "List", items: [range(0; $n) | {
    apiVersion: "v1", kind: "Pod",
    metadata: {name: "p-\(.)", labels: {app: "many"}},
    spec: {schedulerName: "attune-e2e-unscheduled",
           containers: [{name: "app", image: "attune.local/pause:1", resources: {requests: {cpu: "1m", memory: "1Mi"}}}]}}]}' \
  | k -n "$ns" create -f - >/dev/null
expect_eq "pods kubectl lists in $ns" "$(k -n "$ns" get pods --no-headers | wc -l | tr -d ' ')" "$N"
expect_cache_matches "after creating $N pods (watch)"
added=$(metric_sum attune_kube_watch_events_total 'resource="pods".*type="ADDED"|type="ADDED".*resource="pods"')
[ "${added%.*}" -ge "$N" ] || fail "the pod watch delivered $added ADDED events, want >= $N"

# 2. By a paged list, in a fresh process.
stop_manager || fail "attune-manager did not stop within 10 s"
start_manager --kube-qps 50 --kube-burst 100 --start-informers pods
expect_cache_matches "fresh manager (initial state: $(grep -o "informer listed resource=pods via=[a-z-]*" "$MGR_LOG" | head -1 | sed "s/.*via=//"))"
[ "$(metric_sum attune_kube_watch_restarts_total 'resource="pods"')" = 0 ] \
  || log "note: pod watch restarted $(metric_sum attune_kube_watch_restarts_total 'resource="pods"') times"

# 3. Deletions by watch.
k -n "$ns" delete pods -l app=many --wait=false >/dev/null
pod_count() { k -n "$ns" get pods --no-headers 2>/dev/null | wc -l | tr -d ' '; }
wait_eq 60 0 pod_count || fail "pods were not deleted"
expect_cache_matches "after deleting them (watch)"
