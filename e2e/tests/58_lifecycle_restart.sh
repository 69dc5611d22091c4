#!/usr/bin/env bash
# Restart (docs/lifecycle.md): the manager killed (SIGKILL) during step
# 1's pause resumes from status and the pods' annotations at the right step:
# step 1's pods are not resized again, the pause it started is kept, step 2
# resizes only the rest, and the attempt stays the first. The apiserver's
# own /resize counter shows one resize per pod in total.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
. "$(dirname "$0")/66_lifecycle_lib.bash"
lifecycle_test

web_running web 4
want="200m/1/256Mi/512Mi"
start_manager
canary_policy web web '[{"name":"app","resources":{"requests":{"cpu":"200m"}}}]' \
  '{"steps":[{"percent":50,"pause":"20s"},{"percent":100}],"maxConcurrentResizes":2,"persistence":{"mode":"Disabled"}}'
wait_until 90 lc_step_applied web web 0 2 || fail "step 1 never applied: $(lc_entry web web)"
ready_at=$(lc web web .stepReadyAt)
step1=$(lc web web '[.pods[].name] | join(" ")')
kill_manager
log "killed during step 1's pause (ready at $ready_at): $step1"
sleep 3
expect_eq "pods at the candidate while down" "$(count_at web app "$want")" 2
start_manager
wait_until 90 lc_is web web ValidatedWithoutPersistence || fail "never validated after the restart: $(lc_entry web web)"
expect_eq "pods at the candidate" "$(count_at web app "$want")" 4
expect_eq "attempt" "$(lc web web .attempt)" 1
expect_eq "ValidationStarted Events" "$(workload_event_count web ValidationStarted)" 1
# The pause was kept: step 1 completed no earlier than 20 s after its pods were Ready.
done1=$(k -n "$ns" get events.events.k8s.io -o json | jq -r '[.items[] | select(.regarding.name == "web" and .reason == "StepCompleted"
  and (.note | contains("step 1/2")))][0] | (.eventTime // .deprecatedFirstTimestamp // "")')
[ -n "$done1" ] || fail "no StepCompleted Event for step 1"
elapsed=$(( $(date -d "$done1" +%s) - $(date -d "$ready_at" +%s) ))
[ "$elapsed" -ge 20 ] || fail "step 1 completed ${elapsed}s after its pods were Ready; its pause is 20s"
log "resumed: step 1 ($step1) kept, completed ${elapsed}s after Ready; $(lc web web .message)"
oracle_check
expect_eq "/resize requests in all (one per pod)" "$ORACLE_OK" 4
