#!/usr/bin/env bash
# The chain's preflight against the real apiserver, Pushgateway and
# Prometheus (its rule evaluation of deploy/upgrade-gate/alerts.rules.yml),
# target = the next minor. Each run is a real Job spawned by the detector
# (upgrade-step --detect) and run by the harness (upgrade_gate_lib.bash).
#   actionable: the Job Completes, k8s_upgrade_blocked=1 held=0 in
#     Prometheus, K8sUpgradeBlocked fires, no upgrade Job, the report says
#     BLOCKED; a second run of the standing block never resets the gauge (the
#     Pushgateway sampled every 20 ms shows only 1);
#   held (waiting + pinned + actionable): blocked=0 held=1, K8sUpgradeBlocked
#     resolves and stays quiet, the report says HELD with all three groups
#     (from the ConfigMap and from the Job's saved log);
#   gate error (broken matrix): counts as blocked, and a second run does not
#     flap the gauge (min_over_time stays 1 and changes() is 0 in Prometheus,
#     and the push time moved).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/upgrade_gate_lib.bash"
require_cli
require_pushgateway
test_namespace
use_push_job
tmp=$(mktemp -d); at_exit "rm -rf $tmp"
cur=$K8S_MINOR
tgt=$(next_minor "$cur")

fake_addon "$ns" calico attune.local/calico/kube-controllers:v3.29.1 0
fake_addon "$ns" kyverno attune.local/kyverno/kyverno:v1.14.2 0
fake_addon "$ns" gpu-operator attune.local/nvidia/gpu-operator:v25.3.4 0
src() { printf '{"kind": "Deployment", "namespace": "%s", "name": "%s", "container": "%s"}' "$ns" "$1" "$1"; }
cat > "$tmp/actionable.json" <<JSON
{"addons": {
  "calico": {"source": $(src calico), "versions": [{"version": "3.29.0", "max_k8s": "$cur"}, {"version": "3.30.0", "max_k8s": "$tgt"}]}
}}
JSON
cat > "$tmp/held.json" <<JSON
{"addons": {
  "calico": {"source": $(src calico), "versions": [{"version": "3.29.0", "max_k8s": "$cur"}, {"version": "3.30.0", "max_k8s": "$tgt"}]},
  "kyverno": {"source": $(src kyverno), "versions": [{"version": "1.14.0", "max_k8s": "$cur"}]},
  "gpu-operator": {"source": $(src gpu-operator), "versions": [{"version": "25.3.0", "max_k8s": "$cur"}, {"version": "26.3.0", "max_k8s": "$tgt"}],
                   "pinned": true, "pin_reason": "needs a newer NVIDIA driver"}
}}
JSON
printf '{"addons": {"calico": {"source": %s, "versions": [}}\n' "$(src calico)" > "$tmp/broken.json"

matrix=$tmp/matrix.json  # what the Job template mounts; each case swaps it
chain_template "$tmp/job.json" "$ns" "$PUSH_JOB" "$matrix"
gauge() { prom_value "k8s_upgrade_$1{job=\"$PUSH_JOB\",target=\"$tgt\"}"; }
report() { "$ATTUNE_CLI" upgrade-report --prometheus "$PROMETHEUS_URL" --push-job "$PUSH_JOB" -n "$ns" "$@"; }

# Detector + harness: one preflight per call; sets JOB.
preflight_run() {
  local before after
  before=$(chain_jobs "$ns" preflight | wc -l)
  detect "$ns" "$tmp/job.json" || fail "the detector failed"
  after=$(chain_jobs "$ns" preflight | wc -l)
  [ "$after" -eq $((before + 1)) ] || fail "the detector spawned $((after - before)) preflight Jobs, want 1"
  JOB=$(chain_jobs "$ns" preflight | tail -1)
  run_chain_job "$ns" "$JOB"
  expect_eq "preflight $JOB exit (a deliberate decision)" "$STEP_RC" 0
  expect_eq "preflight $JOB" "$(job_state "$ns" "$JOB")" Complete
  expect_eq "upgrade Jobs" "$(chain_jobs "$ns" upgrade | wc -l)" 0
}

log "actionable"
cp "$tmp/actionable.json" "$matrix"
preflight_run
grep -q '^\[ACTIONABLE\] calico: upgrade calico to >= 3.30.0' "$STEP_OUT" || fail "no actionable reason in the Job log: $(cat "$STEP_OUT")"
wait_eq 30 1 gauge blocked || fail "k8s_upgrade_blocked is $(gauge blocked) in Prometheus, want 1"
expect_eq "k8s_upgrade_held" "$(gauge held)" 0
wait_eq 60 firing alert_state K8sUpgradeBlocked || fail "K8sUpgradeBlocked is '$(alert_state K8sUpgradeBlocked)', want firing"
out=$(report) || fail "upgrade-report failed: $out"
head -1 <<<"$out" | grep -q "^⛔ BLOCKED — $tgt" || fail "report headline: $out"
grep -q "^Action needed:" <<<"$out" || fail "no Action needed group: $out"

# A standing block does not flap: a second run pushes 1 again without a reset
# to 0 first. Prometheus scrapes every 2 s and could miss a short reset, so
# the Pushgateway itself is sampled every 20 ms while the run evaluates a
# matrix of 60 addons (60 reads, a second or two at the plugin's 20 QPS).
{
  printf '{"addons": {\n'
  for i in $(seq 1 60); do
    [ "$i" = 1 ] || printf ',\n'
    printf '"calico-%s": {"source": %s, "versions": [{"version": "3.29.0", "max_k8s": "%s"}, {"version": "3.30.0", "max_k8s": "%s"}]}' \
      "$i" "$(src calico)" "$cur" "$tgt"
  done
  printf '\n}}\n'
} > "$matrix"
( while :; do
    curl -sf --max-time 1 "$PUSHGATEWAY_URL/metrics" | awk -v j="job=\"$PUSH_JOB\"" 'index($1, "k8s_upgrade_blocked{") == 1 && index($1, j) { print $2 }'
    sleep 0.02
  done ) > "$tmp/samples" 2>/dev/null &
sampler=$!
at_exit "kill $sampler 2>/dev/null"
preflight_run
kill "$sampler" 2>/dev/null || true
expect_eq "actionable reasons in the second run" "$(grep -c '^\[ACTIONABLE\]' "$STEP_OUT")" 60
[ "$(grep -c . "$tmp/samples")" -gt 20 ] || fail "the Pushgateway sampler saw too little: $(wc -l < "$tmp/samples") samples"
if grep -qvx 1 "$tmp/samples"; then fail "k8s_upgrade_blocked left 1 during the second run: $(sort "$tmp/samples" | uniq -c | tr '\n' ' ')"; fi
expect_eq "K8sUpgradeBlocked after the second run" "$(alert_state K8sUpgradeBlocked)" firing

log "held"
cp "$tmp/held.json" "$matrix"
preflight_run  # a Complete preflight and no upgrade Job: the detector re-spawns it
wait_eq 30 1 gauge held || fail "k8s_upgrade_held is $(gauge held) in Prometheus, want 1"
expect_eq "k8s_upgrade_blocked" "$(gauge blocked)" 0
wait_eq 30 "" alert_state K8sUpgradeBlocked || fail "K8sUpgradeBlocked is still '$(alert_state K8sUpgradeBlocked)' while held"
sleep 6  # three more rule evaluations: still quiet
expect_eq "K8sUpgradeBlocked while held" "$(alert_state K8sUpgradeBlocked)" ""
out=$(report) || fail "upgrade-report failed: $out"
head -1 <<<"$out" | grep -qx "⏸️ HELD — $tgt not yet upgradable" || fail "report headline: $out"
for group in "Action needed:" "Waiting on upstream:" "Pinned (held by us):"; do
  grep -qxF "$group" <<<"$out" || fail "no '$group' in the report: $out"
done
grep -q "  • kyverno: no released kyverno supports Kubernetes $tgt yet" <<<"$out" || fail "kyverno not under a group: $out"
# The same report from the Job's saved log instead of the ConfigMap.
out=$(report --reasons-file "$STEP_OUT") || fail "upgrade-report --reasons-file failed: $out"
expect_eq "groups from the Job log" "$(grep -cE '^(Action needed|Waiting on upstream|Pinned \(held by us\)):$' <<<"$out")" 3

log "gate error"
cp "$tmp/broken.json" "$matrix"
preflight_run
grep -q "line 1: addons.calico.versions" "$UPGRADE_LOGS/$JOB.err" || fail "the gate error does not name the line and field: $(tail -3 "$UPGRADE_LOGS/$JOB.err")"
wait_eq 30 1 gauge blocked || fail "a gate error must count as blocked (k8s_upgrade_blocked=$(gauge blocked))"
expect_eq "k8s_upgrade_held after a gate error" "$(gauge held)" 0
first_push=$(prom_value "push_time_seconds{job=\"$PUSH_JOB\"}")
t0=$(date +%s)
sleep 3
preflight_run  # the standing block is pushed again, definitively
wait_until 30 test "$(prom_value "push_time_seconds{job=\"$PUSH_JOB\"}")" != "$first_push" || true
second_push=$(prom_value "push_time_seconds{job=\"$PUSH_JOB\"}")
[ "$second_push" != "$first_push" ] || fail "the second run did not push (push_time_seconds $first_push)"
sleep 4  # two more scrapes after the second push
win=$(( $(date +%s) - t0 ))
expect_eq "min of k8s_upgrade_blocked over both runs" \
  "$(prom_value "min_over_time(k8s_upgrade_blocked{job=\"$PUSH_JOB\"}[${win}s])")" 1
expect_eq "changes of k8s_upgrade_blocked over both runs" \
  "$(prom_value "changes(k8s_upgrade_blocked{job=\"$PUSH_JOB\"}[${win}s])")" 0
