#!/usr/bin/env bash
# Safety (docs/safety.md): during safetyObservationPeriod a resized pod that
# is OOMKilled, restarts twice, or turns NotReady (faults injected by
# kubesim) goes back to the originals stored on the pod. The manager is
# restarted between the resize and the faults, so the reverts come from the
# pod's annotations, not from memory. Each revert gives a Reverted Event, a
# history entry with its reason and attune_reverts_total{reason}; three
# reverts make the policy Degraded=True HighRevertRate and back the cooldown
# off (status.cooldown). A reverted pod is not resized to the same target again.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
require_local "kubesim's fault injection"
require_manager
apply_policy_crd
test_namespace
oracle_begin

web_deployment safe 3
wait_all_at 90 safe app "500m/1/256Mi/512Mi" || fail "pods never ran: $(spec_and_status safe app)"
start_manager
manual_policy safe safe Auto '[{"name":"app","resources":{"requests":{"cpu":"200m"}}}]'
wait_all_at 60 safe app "200m/1/256Mi/512Mi" || fail "not resized: $(spec_and_status safe app)"
wait_eq 30 3 history_count safe Success || fail "history: $(history_of safe)"
for p in $(pod_names safe); do
  k -n "$ns" get pod "$p" -o json | jq -e '.metadata.labels["attune.io/tracked"] == "true"
    and .metadata.annotations["attune.io/original-cpu-request.app"] == "500m"' >/dev/null \
    || fail "$p does not carry its originals: $(k -n "$ns" get pod "$p" -o jsonpath='{.metadata.annotations}')"
done

log "restarting the manager: the originals live on the pods"
stop_manager || fail "the manager did not stop on SIGTERM"
start_manager

read -r oom restarts notready <<<"$(pod_names safe | tr "\n" " ")"
# OOM: the simulated working set reaches the applied memory limit (512Mi).
k -n "$ns" annotate pod "$oom" --overwrite sim.attune.io/load='{"app": {"cpu": "50m", "memory": "600Mi"}}' >/dev/null
k -n "$ns" annotate pod "$restarts" --overwrite sim.attune.io/restart-count='{"app": 2}' >/dev/null
k -n "$ns" annotate pod "$notready" --overwrite sim.attune.io/ready=false >/dev/null

wait_all_at 60 safe app "500m/1/256Mi/512Mi" || fail "not reverted to the originals: $(spec_and_status safe app)"
for r in oomkill restart notready; do
  wait_until 30 has_history safe Reverted "$r" || fail "no Reverted entry with reason $r: $(history_of safe)"
  [ "$(metric_sum attune_reverts_total "reason=\"$r\"")" = 1 ] || fail "attune_reverts_total{reason=\"$r\"} != 1"
done
wait_until 30 has_events safe Reverted 3 || fail "want 3 Reverted Events: $(events_of safe Reverted)"
log "reverted: $(history_of safe | jq -r '[.[] | select(.result == "Reverted") | .reason] | join(", ")')"
wait_eq 30 "True HighRevertRate" condition_of safe Degraded || fail "Degraded is '$(condition_of safe Degraded)'"
cooldown=$(k -n "$ns" get attunepolicy safe -o json | jq -c .status.cooldown)
log "status.cooldown after three reverts: $cooldown"
jq -e '.consecutiveReverts == 3 and .backoffMultiplier == 8 and .effectiveCooldown == "8m0s"' <<<"$cooldown" >/dev/null \
  || fail "cooldown not backed off: $cooldown"
# The reverted pods keep their originals: the same target is not sent again.
sleep 8
all_at safe app "500m/1/256Mi/512Mi" || fail "a reverted pod was resized again: $(spec_and_status safe app)"
oracle_check
