#!/usr/bin/env bash
# The throttling analysis (docs/lifecycle.md) against the
# real Prometheus scraping kubesim's CFS counters (61 checks that model):
#  - hot: demand 250m, candidate cpu limit 100m, so it is throttled in ~60%
#    of its periods; after the settle gate (window 1m) the analysis fails:
#    the canary pod is rolled back to the baseline, the revision lands in
#    failedRevisions, a ValidationFailed Event says why, and it is not tried
#    again (no further resize);
#  - cool: demand 50m, candidate limit 400m: not throttled; it validates and
#    persists (TemplatePatch: the template carries the candidate and the
#    revision annotations, phase Persisted).
# Both policies take Manual candidates; the Prometheus comes from the
# namespace's AttuneNamespaceDefaults.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
. "$(dirname "$0")/66_lifecycle_lib.bash"
require_local "the harness's Prometheus"
lifecycle_test

k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: attune.io/v1alpha1
kind: AttuneNamespaceDefaults
metadata: {name: team}
spec: {metricsSource: {prometheus: {address: "$PROMETHEUS_URL"}}}
YAML
web_running hot 2 '{"app": {"cpu": "250m", "memory": "60Mi"}}'
web_running cool 1 '{"app": {"cpu": "50m", "memory": "60Mi"}}'
start_manager --allow-local-metrics-addresses
analysis='"analysis":{"cpuThrottling":{"enabled":true,"window":"1m","thresholdFraction":0.25}}'
canary_policy hot hot '[{"name":"app","resources":{"requests":{"cpu":"100m"},"limits":{"cpu":"100m"}}}]' \
  "{\"steps\":[{\"percent\":50},{\"percent\":100}],$analysis,\"persistence\":{\"mode\":\"Disabled\"}}"
canary_policy cool cool '[{"name":"app","resources":{"requests":{"cpu":"200m"},"limits":{"cpu":"400m"}}}]' \
  "{\"steps\":[{\"percent\":100}],$analysis,\"persistence\":{\"mode\":\"TemplatePatch\"}}"

# hot: one canary pod throttled at its 100m limit, then the verdict.
wait_until 60 lc_step_applied hot hot 0 1 || fail "hot's canary never reached the candidate: $(lc_entry hot hot)"
wait_until 150 lc_is hot hot Failed || fail "hot never failed its analysis: $(lc_entry hot hot)"
rev=$(lc hot hot .currentRevision)
log "hot failed: $(lc hot hot .lastAnalysis.explanation)"
expect_eq "hot's revision on failedRevisions" "$(lc_entry hot hot | jq -r --arg r "$rev" '.failedRevisions | index($r) != null')" true
expect_eq "hot's last analysis passed" "$(lc hot hot .lastAnalysis.passed)" false
lc hot hot .lastAnalysis.explanation | grep -q "throttled above 25% of CFS periods" || fail "explanation: $(lc hot hot .lastAnalysis.explanation)"
wait_until 30 has_workload_event hot ValidationFailed || true
workload_events hot ValidationFailed | grep -q "CPU throttling analysis failed" || fail "no ValidationFailed Event: $(workload_events hot ValidationFailed)"
wait_eq 60 2 count_at hot app "$base" || fail "hot's canary was not rolled back to the baseline: $(spec_and_status hot app)"

# cool: validated and persisted by a template patch.
wait_until 150 lc_is cool cool Persisted || fail "cool never persisted: $(lc_entry cool cool)"
crev=$(lc cool cool .validatedRevision)
log "cool: $(lc cool cool .lastAnalysis.explanation); $(lc cool cool .message)"
expect_eq "cool's last analysis passed" "$(lc cool cool .lastAnalysis.passed)" true
tmpl() { k -n "$ns" get deployment "$1" -o json | jq -r '.spec.template.spec.containers[0].resources | "\(.requests.cpu)/\(.limits.cpu)"'; }
expect_eq "cool's template resources" "$(tmpl cool)" "200m/400m"
expect_eq "cool's persisted-revision" "$(k -n "$ns" get deployment cool -o jsonpath='{.metadata.annotations.attune\.io/persisted-revision}')" "$crev"
expect_eq "cool's template revision" "$(k -n "$ns" get deployment cool -o jsonpath='{.spec.template.metadata.annotations.attune\.io/revision}')" "$crev"

# Not retried: hot's pods stay at the baseline, its history stays at the
# canary's resize and the rollback, and it is still the first attempt.
sleep 10
expect_eq "hot's resizes (canary + rollback)" "$(history_count hot Success)" 2
expect_eq "hot's pods at the baseline" "$(count_at hot app "$base")" 2
expect_eq "hot's phase" "$(lc hot hot .phase)" Failed
expect_eq "hot's attempts" "$(lc hot hot .attempt)" 1
expect_eq "hot's template" "$(tmpl hot)" "500m/1"
oracle_check
