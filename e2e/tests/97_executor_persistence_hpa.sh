#!/usr/bin/env bash
# Template persistence and the HPA retune (docs/resize.md):
#  - templatePersistence {enabled, AfterSuccessfulResize}: once every replica
#    is resized in place (Applied), the Deployment's pod template is patched
#    with the applied values, once: its generation moves by exactly one, one
#    TemplatePatched history entry after the pods' Success entries, one
#    TemplatePatched Event; the rollout it starts creates pods already at the
#    target, which are not resized again;
#  - the HPA annotated attune.io/auto-tune=true gets its CPU utilisation target
#    retuned to base x old request / new request (80 x 500m / 400m = 100, under
#    the limit/request cap of 200), the base kept in attune.io/original-target-cpu.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
require_manager
apply_policy_crd
test_namespace
oracle_begin

web_deployment persist 2
wait_all_at 90 persist app "500m/1/256Mi/512Mi" || fail "pods never ran: $(spec_and_status persist app)"
auto_tune_hpa persist
gen() { k -n "$ns" get deploy persist -o jsonpath='{.metadata.generation}'; }
gen0=$(gen)

start_manager
manual_policy persist persist Auto '[{"name":"app","resources":{"requests":{"cpu":"400m"},"limits":{"cpu":"800m"}}}]' \
  '{"templatePersistence":{"enabled":true,"when":"AfterSuccessfulResize"}}'
template_cpu() { k -n "$ns" get deploy persist -o json | jq -r '.spec.template.spec.containers[0].resources | "\(.requests.cpu)/\(.limits.cpu)"'; }
wait_eq 90 "400m/800m" template_cpu || fail "template not persisted: $(template_cpu); history $(history_of persist)"
expect_eq "Deployment generation after one template patch" "$(gen)" "$((gen0 + 1))"
history_of persist | jq -e '
  ([.[] | select(.result == "TemplatePatched")] | length == 1) and
  ([.[] | select(.result == "Success")] | length == 2) and
  (.[-1].result == "TemplatePatched") and
  ([.[] | select(.result == "TemplatePatched")][0] | .method == "TemplatePersistence" and .resource == "template" and .reason == "AfterSuccessfulResize")' \
  >/dev/null || fail "history: $(history_of persist)"
wait_until 30 has_events persist TemplatePatched || fail "no TemplatePatched Event"
log "template persisted after both replicas were Applied: $(history_of persist | jq -c '[.[] | {result, timestamp}]')"

# The HPA.
hpa_target() { k -n "$ns" get hpa persist -o json | jq -r '"\(.spec.metrics[0].resource.target.averageUtilization) \(.metadata.annotations["attune.io/original-target-cpu"])"'; }
wait_eq 30 "100 80" hpa_target || fail "HPA target/base: $(hpa_target), want '100 80'"
log "HPA retuned: target $(hpa_target | cut -d' ' -f1)%, base $(hpa_target | cut -d' ' -f2)%"

# The rollout's new pods are born at the target; nothing is patched again.
wait_all_at 120 persist app "400m/800m/256Mi/512Mi" || fail "the rollout's pods are not at the target: $(spec_and_status persist app)"
sleep 10
expect_eq "Deployment generation later" "$(gen)" "$((gen0 + 1))"
expect_eq "TemplatePatched entries later" "$(history_count persist TemplatePatched)" 1
expect_eq "template patches counted" "$(metric_sum attune_template_patch_total 'result="success"')" 1
oracle_check
