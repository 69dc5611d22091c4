#!/usr/bin/env bash
# Revalidation (docs/lifecycle.md): bumping spec.lifecycle.
# revalidationToken reruns an unchanged revision exactly once, even across a
# manager restart: attempt 2 with the same revision, one RevalidationStarted
# Event, handledRevalidationToken recorded, validated again; the manager,
# killed once the token was handled (in step 1's pause of the rerun) and
# started again, finishes that attempt and starts no third.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
. "$(dirname "$0")/66_lifecycle_lib.bash"
lifecycle_test

web_running web 2
want="200m/1/256Mi/512Mi"
start_manager
rec='[{"name":"app","resources":{"requests":{"cpu":"200m"}}}]'
lifecycle() { echo "{\"steps\":[{\"percent\":50,\"pause\":\"15s\"},{\"percent\":100}],\"persistence\":{\"mode\":\"Disabled\"},\"revalidationToken\":\"$1\"}"; }
canary_policy web web "$rec" "$(lifecycle t1)"
wait_until 120 lc_is web web ValidatedWithoutPersistence || fail "never validated: $(lc_entry web web)"
rev=$(lc web web .currentRevision)
expect_eq "first attempt" "$(lc web web .attempt)" 1
expect_eq "the first attempt records its token" "$(lc web web .handledRevalidationToken)" t1

canary_policy web web "$rec" "$(lifecycle t2)"
wait_eq 60 t2 lc web web .handledRevalidationToken || fail "token t2 never handled: $(lc_entry web web)"
expect_eq "attempt after the token" "$(lc web web .attempt)" 2
expect_eq "the same revision" "$(lc web web .currentRevision)" "$rev"
expect_eq "the rerun validates" "$(lc web web .phase)" ValidationRunning
kill_manager
log "manager killed after handling t2: $(lc web web .phase) step $(lc web web .step)"
start_manager
wait_until 90 lc_is web web ValidatedWithoutPersistence || fail "never validated again: $(lc_entry web web)"
sleep 5
expect_eq "attempts after the restart" "$(lc web web .attempt)" 2
expect_eq "revision" "$(lc web web .validatedRevision)" "$rev"
expect_eq "RevalidationStarted Events" "$(workload_event_count web RevalidationStarted)" 1
expect_eq "pods at the candidate" "$(count_at web app "$want")" 2
log "revalidated once: $(workload_events web RevalidationStarted)"
oracle_check
