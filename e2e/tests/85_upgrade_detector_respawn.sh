#!/usr/bin/env bash
# The detector (upgrade-step --detect, the nightly CronJob's command) against
# real Jobs on the apiserver, target = the next minor:
#   no preflight          => spawns one, announced (Event UpgradeAvailable on it);
#   preflight running     => nothing;
#   preflight Completed (a refusal) and no upgrade Job
#                         => re-spawns silently (no Event for the new Job);
#   preflight Failed      => re-spawns, announced (Warning UpgradePreflightRespawned);
#   preflight Completed and the upgrade Job exists => nothing (the chain went on);
#   --latest at the cluster's minor => nothing, k8s_upgrade_available 0.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/upgrade_gate_lib.bash"
require_cli
require_pushgateway
test_namespace
use_push_job
tmp=$(mktemp -d); at_exit "rm -rf $tmp"
cur=$K8S_MINOR
tgt=$(next_minor "$cur")

fake_addon "$ns" kyverno attune.local/kyverno/kyverno:v1.14.2 0
src='{"kind": "Deployment", "namespace": "'"$ns"'", "name": "kyverno", "container": "kyverno"}'
echo '{"addons": {"kyverno": {"source": '"$src"', "versions": [{"version": "1.14.0", "max_k8s": "'"$cur"'"}]}}}' > "$tmp/held.json"
echo '{"addons": {"kyverno": {"source": '"$src"', "versions": [{"version": "1.14.0", "max_k8s": "'"$tgt"'"}]}}}' > "$tmp/safe.json"
matrix=$tmp/matrix.json
chain_template "$tmp/job.json" "$ns" "$PUSH_JOB" "$matrix"

events_for() {  # events_for JOB -> "type reason" lines
  k -n "$ns" get events.events.k8s.io -o json \
    | jq -r --arg j "$1" '.items[] | select(.regarding.kind == "Job" and .regarding.name == $j and (.reason | startswith("Upgrade"))) | "\(.type) \(.reason)"'
}
preflights() { chain_jobs "$ns" preflight | wc -l; }

log "no preflight yet: spawn, announced"
detect "$ns" "$tmp/job.json" || fail "detect failed"
expect_eq "preflights" "$(preflights)" 1
first=$(chain_jobs "$ns" preflight | tail -1)
wait_eq 10 "Normal UpgradeAvailable" events_for "$first" || fail "no announcement for $first: $(events_for "$first")"
expect_eq "k8s_upgrade_available" "$(curl -sf "$PUSHGATEWAY_URL/metrics" | awk -v j="job=\"$PUSH_JOB\"" -v t="target=\"$tgt\"" 'index($1, "k8s_upgrade_available{") == 1 && index($1, j) && index($1, t) {print $2}')" 1

log "preflight running: nothing"
detect "$ns" "$tmp/job.json" || fail "detect failed"
expect_eq "preflights while one runs" "$(preflights)" 1

log "refused (Complete, no upgrade Job): re-spawn silently"
cp "$tmp/held.json" "$matrix"
run_chain_job "$ns" "$first"
expect_eq "the refusing preflight's exit" "$STEP_RC" 0
detect "$ns" "$tmp/job.json" || fail "detect failed"
expect_eq "preflights after a refusal" "$(preflights)" 2
second=$(chain_jobs "$ns" preflight | tail -1)
sleep 2
expect_eq "events for the silent re-spawn $second" "$(events_for "$second")" ""

log "failed: re-spawn, announced"
# HARNESS: the step's container crashed (exit 1) before it did anything.
for _ in $(seq 1 120); do pod=$(job_pod "$ns" "$second"); [ -n "$pod" ] && [ "$(pod_phase "$ns" "$pod")" = Running ] && break; sleep 0.5; done
finish_pod "$ns" "$(job_pod "$ns" "$second")" 1
wait_eq 60 Failed job_state "$ns" "$second" || fail "$second did not fail"
detect "$ns" "$tmp/job.json" || fail "detect failed"
expect_eq "preflights after a failure" "$(preflights)" 3
third=$(chain_jobs "$ns" preflight | tail -1)
wait_eq 10 "Warning UpgradePreflightRespawned" events_for "$third" || fail "no announcement for $third: $(events_for "$third")"
expect_eq "Failed Job kept" "$(job_state "$ns" "$second")" Failed

log "passed and the chain went on: nothing"
cp "$tmp/safe.json" "$matrix"
run_chain_job "$ns" "$third"
expect_eq "the passing preflight's exit" "$STEP_RC" 0
expect_eq "upgrade Jobs spawned by the passing preflight" "$(chain_jobs "$ns" upgrade | wc -l)" 1
detect "$ns" "$tmp/job.json" || fail "detect failed"
expect_eq "preflights after the chain went on" "$(preflights)" 3
# The upgrade Job is left alone: the harness never runs it here.

log "--latest at the cluster's minor: nothing to detect"
detect "$ns" "$tmp/job.json" --latest "$cur" || fail "detect --latest failed"
expect_eq "preflights with no newer minor" "$(preflights)" 3
expect_eq "k8s_upgrade_available with no newer minor" "$(curl -sf "$PUSHGATEWAY_URL/metrics" | awk -v j="job=\"$PUSH_JOB\"" 'index($1, "k8s_upgrade_available{") == 1 && index($1, j) {print $2}')" 0
grep -q 'announce=true' "$UPGRADE_LOGS/detect-$ns.log" || fail "the detector never logged an announcement"
expect_eq "announcements logged" "$(grep -c 'announce upgrade chain' "$UPGRADE_LOGS/detect-$ns.log")" 2
