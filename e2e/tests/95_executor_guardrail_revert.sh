#!/usr/bin/env bash
# An sloGuardrails breach reverts (docs/safety.md). A Prometheus-source
# policy (the harness's real Prometheus, short steps) right-sizes an
# over-provisioned Deployment; its guardrail, a PromQL query over kubesim's
# series of the resized pod (forced into the policy's namespace), breaches,
# and the pod goes back to its originals with history reason slo:<name>.
# A second policy's guardrail that cannot breach keeps its resize: the
# revert is the guardrail's doing.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
. "$(dirname "$0")/recommend_lib.bash"
require_local "the harness's Prometheus"
require_manager
apply_policy_crd
test_namespace
oracle_begin

web_deployment breach 1 '{"app": {"cpu": "40m", "memory": "60Mi"}}'
web_deployment calm 1 '{"app": {"cpu": "40m", "memory": "60Mi"}}'
wait_all_at 90 breach app "500m/1/256Mi/512Mi" || fail "breach never ran"
wait_all_at 90 calm app "500m/1/256Mi/512Mi" || fail "calm never ran"
start_manager --allow-local-metrics-addresses
guard() {  # guard THRESHOLD -> an updateStrategy with one guardrail on the pod's working set
  jq -cn --arg t "$1" '{updateStrategy: {type: "Auto", cooldown: "1m", safetyObservationPeriod: "1m",
    sloGuardrails: [{name: "working-set", threshold: $t, comparison: "above", evaluationWindow: "1m",
      query: "max(container_memory_working_set_bytes{pod=\"{{ .PodName }}\", container=\"app\"})"}]}}'
}
policy breach breach "$(prometheus_source)" "$(guard 1)"
policy calm calm "$(prometheus_source)" "$(guard 1e15)"

resized_cpu() { pods_of "$1" | jq -r '[.items[] | select(.status.phase == "Running")][0].spec.containers[0].resources.requests.cpu'; }
was_resized() { has_history "$1" Success ""; }
wait_until 150 was_resized calm || fail "calm was never resized: $(history_of calm); Ready $(condition_of calm Ready)"
wait_until 60 has_history breach Reverted "slo:working-set" || fail "no guardrail revert: $(history_of breach)"
log "breach: $(history_of breach | jq -c '[.[] | {result, reason, from, to}]')"
wait_until 30 all_at breach app "500m/1/256Mi/512Mi" || fail "breach not back at its originals: $(spec_and_status breach app)"
has_events breach Reverted || fail "no Reverted Event"
[ "$(metric_sum attune_reverts_total 'reason="slo:working-set"')" = 1 ] || fail "attune_reverts_total{reason=slo:working-set} != 1"
sleep 5
has_history calm Reverted "" && fail "calm's guardrail cannot breach, yet it was reverted: $(history_of calm)"
log "calm kept its resize: cpu $(resized_cpu calm)"
[ "$(resized_cpu calm)" != 500m ] || fail "calm is back at 500m"
oracle_check
