#!/usr/bin/env bash
# Node room and eviction (docs/resize.md). Attune's own node-room gate never
# sends a resize the Node's allocatable cannot hold, so the kubelet's view
# is narrowed with the harness fault sim.attune.io/kubelet-allocatable
# (e2e/kubesim/README.md): a kubelet whose reserved resources grew.
#  - Deferred: shown in status.workloads.deferred, ResizeBlocked=True
#    PodsDeferred and attune_pods_deferred; applied once room appears, and
#    ResizeBlocked is removed.
#  - Infeasible under InPlaceOnly: InfeasibleBlocked, status.workloads.infeasible,
#    ResizeBlocked=True PodsInfeasible; the pod stays.
#  - Infeasible under InPlaceOrRecreate: evicted through the Eviction API
#    (Evicted, history Evicted), once (the replacement waits the cooldown),
#    and never the last Running replica (EvictionBlocked, eviction_last_replica).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
require_local "kubesim's sim.attune.io/kubelet-allocatable"
require_manager
apply_policy_crd
test_namespace
oracle_begin

tight="e2e-tight-$RANDOM" small="e2e-small-$RANDOM"
sim_node "$tight" 2 8Gi
sim_node "$small" 4 8Gi
pinned() { printf '      nodeSelector: {kubernetes.io/hostname: %s}\n      tolerations: [{key: attune.io/e2e-dedicated, operator: Exists}]\n' "$1"; }
web_deployment room 2 '{"app": {"cpu": "50m", "memory": "60Mi"}}' "$(pinned "$tight")"
web_deployment stuck 1 '{"app": {"cpu": "50m", "memory": "60Mi"}}' "$(pinned "$small")"
web_deployment recreate 2 '{"app": {"cpu": "50m", "memory": "60Mi"}}' "$(pinned "$small")"
web_deployment lonely 1 '{"app": {"cpu": "50m", "memory": "60Mi"}}' "$(pinned "$small")"
for d in room stuck recreate lonely; do
  wait_all_at 90 "$d" app "500m/1/256Mi/512Mi" || fail "$d never ran: $(spec_and_status "$d" app)"
done
[ "$(pod_names recreate | wc -l)" = 2 ] || fail "recreate should run 2 replicas"
# The kubelets' own room: on $tight 1200m (one 500m pod plus 800m does not fit:
# Deferred); on $small 700m (800m does not fit at all: Infeasible).
k annotate node "$tight" sim.attune.io/kubelet-allocatable='{"cpu": "1200m"}' --overwrite >/dev/null
k annotate node "$small" sim.attune.io/kubelet-allocatable='{"cpu": "700m"}' --overwrite >/dev/null
at_exit "k annotate node $tight sim.attune.io/kubelet-allocatable- >/dev/null 2>&1"
lonely_uid=$(pods_of lonely | jq -r '.items[0].metadata.uid')

start_manager
target='[{"name":"app","resources":{"requests":{"cpu":"800m"}}}]'
manual_policy room room Auto "$target"
manual_policy stuck stuck Auto "$target"
manual_policy recreate recreate Auto "$target" '{"resizeMethod":"InPlaceOrRecreate"}'
manual_policy lonely lonely Auto "$target" '{"resizeMethod":"InPlaceOrRecreate"}'

# Deferred.
deferred_shown() {
  [ "$(workload_counts room | jq .deferred)" = 1 ] && [ "$(condition_of room ResizeBlocked)" = "True PodsDeferred" ] \
    && [ "$(metric_sum attune_pods_deferred 'policy="room"')" = 1 ]
}
wait_until 60 deferred_shown || fail "Deferred not shown: workloads $(workload_counts room), ResizeBlocked '$(condition_of room ResizeBlocked)', gauge $(metric_sum attune_pods_deferred 'policy="room"')"
log "Deferred: workloads $(workload_counts room), ResizeBlocked $(condition_of room ResizeBlocked)"
k annotate node "$tight" sim.attune.io/kubelet-allocatable- >/dev/null
wait_all_at 90 room app "800m/1/256Mi/512Mi" || fail "the Deferred resize was not applied once room appeared: $(spec_and_status room app)"
wait_eq 30 " " condition_of room ResizeBlocked || fail "ResizeBlocked still set: $(condition_of room ResizeBlocked)"
log "room appeared: both replicas at 800m, ResizeBlocked removed"

# Infeasible, InPlaceOnly.
infeasible_shown() {
  has_events stuck InfeasibleBlocked && [ "$(workload_counts stuck | jq .infeasible)" = 1 ] \
    && [ "$(condition_of stuck ResizeBlocked)" = "True PodsInfeasible" ]
}
wait_until 60 infeasible_shown || fail "Infeasible not shown: $(workload_counts stuck), '$(condition_of stuck ResizeBlocked)', events: $(events_of stuck InfeasibleBlocked)"
[ "$(pod_names stuck | wc -l)" = 1 ] || fail "InPlaceOnly must not evict"
log "InPlaceOnly: $(events_of stuck InfeasibleBlocked | head -1)"

# Infeasible, InPlaceOrRecreate: evicted, never the last replica.
wait_until 60 has_events recreate Evicted || fail "no Evicted Event for recreate: $(history_of recreate)"
has_history recreate Evicted infeasible || fail "no history entry Evicted: $(history_of recreate)"
[ "$(metric_sum attune_eviction_total 'result="success"')" -ge 1 ] || fail "attune_eviction_total did not count the eviction"
log "InPlaceOrRecreate: $(events_of recreate Evicted | head -1)"
wait_until 60 has_events lonely EvictionBlocked || fail "no EvictionBlocked Event for the last replica"
events_of lonely EvictionBlocked | grep -q "last Running replica\|eviction_last_replica\|last replica" \
  || log "EvictionBlocked note: $(events_of lonely EvictionBlocked | head -1)"
expect_eq "the last replica is still the same pod" "$(pods_of lonely | jq -r '.items[0].metadata.uid')" "$lonely_uid"
# The recreated replica needs the same impossible resize: it waits the
# cooldown instead of being resized and evicted again in a loop.
sleep 5
expect_eq "evictions of recreate" "$(metric_sum attune_eviction_total 'result="success",workload="recreate"')" 1
oracle_check
