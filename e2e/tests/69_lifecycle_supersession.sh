#!/usr/bin/env bash
# Supersession (docs/lifecycle.md): changing the Manual recommendation
# while a revision validates (here at step 2 of 2, in its pause) starts over
# at step 0 with a new revision on the same frozen baseline: a
# ValidationSuperseded Event, attempt 2, the first step's pod at the new
# candidate and the pod beyond it back at the baseline.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
. "$(dirname "$0")/66_lifecycle_lib.bash"
lifecycle_test

web_running web 2
first="200m/1/256Mi/512Mi" second="300m/1/256Mi/512Mi"
start_manager
steps='{"steps":[{"percent":50,"pause":"15s"},{"percent":100,"pause":"10m"}],"persistence":{"mode":"Disabled"}}'
canary_policy web web '[{"name":"app","resources":{"requests":{"cpu":"200m"}}}]' "$steps"
wait_until 90 lc_step_applied web web 1 2 || fail "never reached step 2 with both pods Applied: $(lc_entry web web)"
rev1=$(lc web web .currentRevision)
expect_eq "pods at the first candidate" "$(count_at web app "$first")" 2
canary=$(lc web web '.pods[0].name')
log "revision $rev1 at step 2; the first step's pod is $canary"

canary_policy web web '[{"name":"app","resources":{"requests":{"cpu":"300m"}}}]' "$steps"
new_revision() { local r; r=$(lc web web .currentRevision); [ -n "$r" ] && [ "$r" != "$rev1" ]; }
wait_until 60 new_revision || fail "the change did not supersede $rev1: $(lc_entry web web)"
rev2=$(lc web web .currentRevision)
expect_eq "step after supersession" "$(lc web web .step)" 0
expect_eq "attempt" "$(lc web web .attempt)" 2
expect_eq "baseline kept" "$(lc web web '.baseline.containers[0].resources.requests.cpu')" 500m
expect_eq "new candidate" "$(lc web web '.candidate.containers[0].resources.requests.cpu')" 300m
wait_until 30 has_workload_event web ValidationSuperseded || fail "no ValidationSuperseded Event"
workload_events web ValidationSuperseded | grep -q "revision $rev2" || fail "Event: $(workload_events web ValidationSuperseded)"

# During the new step 1's pause: the canary at the new candidate, the other back at the baseline.
wait_until 60 lc_step_applied web web 0 1 || fail "the new step 1 never applied: $(lc_entry web web)"
expect_eq "the new step's pod" "$(lc web web '.pods[0].name')" "$canary"
wait_eq 30 "$canary" at_candidate web app "$second" || fail "canary not at the new candidate: $(spec_and_status web app)"
wait_eq 30 1 count_at web app "$base" || fail "the pod beyond step 1 was not rolled back: $(spec_and_status web app)"
lc_step_applied web web 0 1 || fail "moved past step 1 while checking (pause 15s)"
log "superseded: $rev1 -> $rev2 at step 0; $(lc web web .message)"
oracle_check
