#!/usr/bin/env bash
# Cumulative canary steps (docs/lifecycle.md): 11 replicas
# under steps 10/50/100 are resized in place 2, then 6, then 11 at a time,
# each step's pods (read from status.lifecycle and from the pods themselves)
# a prefix of the next step's, and only once the previous step's pods are
# Applied and its pause is over. Persistence Disabled: it ends at
# ValidatedWithoutPersistence with every pod at the candidate.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
. "$(dirname "$0")/66_lifecycle_lib.bash"
lifecycle_test

web_running web 11
want="200m/1/256Mi/512Mi"
start_manager
canary_policy web web '[{"name":"app","resources":{"requests":{"cpu":"200m"}}}]' \
  '{"steps":[{"percent":10,"pause":"20s"},{"percent":50,"pause":"20s"},{"percent":100}],
    "maxConcurrentResizes":3,"persistence":{"mode":"Disabled"}}'

# step_holds STEP N: during STEP's pause exactly N pods are at the candidate,
# the same N the status lists (a status read on both sides of the pod read).
step_holds() {
  local step=$1 n=$2 listed cluster
  wait_until 90 lc_step_applied web web "$step" "$n" || fail "step $step never had $n pods Applied: $(lc_entry web web)"
  listed=$(lc web web '[.pods[].name] | join(" ")')
  cluster=$(at_candidate web app "$want" | tr '\n' ' ' | sed 's/ $//')
  lc_step_applied web web "$step" "$n" || fail "step $step moved on while it was read; pause too short?"
  expect_eq "pods at the candidate during step $step" "$(wc -w <<<"$cluster")" "$n"
  expect_eq "step $step: the status's pods are the resized ones" "$(tr ' ' '\n' <<<"$listed" | sort | tr '\n' ' ' | sed 's/ $//')" "$cluster"
  echo "$listed"
}
s1=$(step_holds 0 2) || exit 1
log "step 1 (10% of 11): $s1"
rev=$(lc web web .currentRevision)
s2=$(step_holds 1 6) || exit 1
log "step 2 (50% of 11): $s2"
log "status.lifecycle during step 2: $(lc_entry web web)"
[[ "$s2" == "$s1 "* ]] || fail "step 1's pods ($s1) are not a prefix of step 2's ($s2)"

wait_until 120 lc_is web web ValidatedWithoutPersistence || fail "never validated: $(lc_entry web web)"
expect_eq "pods at the candidate at the end" "$(count_at web app "$want")" 11
expect_eq "the revision validated" "$(lc web web .validatedRevision)" "$rev"
expect_eq "the revision never changed" "$(lc web web .currentRevision)" "$rev"
expect_eq "the last step" "$(lc web web .step)" 2
[ "$(workload_event_count web StepCompleted)" -ge 3 ] || fail "want 3 StepCompleted Events: $(workload_events web StepCompleted)"
workload_events web Validated | grep -q "revision $rev validated over 3 steps" || fail "no Validated Event: $(workload_events web Validated)"
restarts=$(spec_and_status web app | awk '{ s += $4 } END { print s + 0 }')
expect_eq "restarts" "$restarts" 0
log "validated in place: $(lc web web .message)"
oracle_check
