#!/usr/bin/env bash
# templatePersistence {enabled, OnRecommendation} under a Recommend policy
# (docs/resize.md#template-persistence-template_persistence):
#  - the Deployment's pod template takes the recommendation, once (its
#    generation moves by exactly one), with one TemplatePatched history
#    entry (reason OnRecommendation) and no in-place resize: the apiserver's
#    own /resize counter does not move while the rollout replaces the pods,
#    and the new pods are created at the recommendation;
#  - the Deployment carries a Flux label, so a GitOpsDrift Warning names Flux;
#  - the same policy with when: AfterSuccessfulResize leaves its template as
#    it is: under Recommend nothing is resized, so nothing is applied.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
require_manager
apply_policy_crd
test_namespace
oracle_begin
read -r resize_ok0 _ < <(resize_counts)

web_deployment rec-persist 2
web_deployment rec-after 1
k -n "$ns" label deploy rec-persist kustomize.toolkit.fluxcd.io/name=apps >/dev/null
wait_all_at 90 rec-persist app "500m/1/256Mi/512Mi" || fail "pods never ran: $(spec_and_status rec-persist app)"
wait_all_at 90 rec-after app "500m/1/256Mi/512Mi" || fail "pods never ran: $(spec_and_status rec-after app)"
gen() { k -n "$ns" get deploy "$1" -o jsonpath='{.metadata.generation}'; }
gen_persist=$(gen rec-persist)
gen_after=$(gen rec-after)

start_manager
target='[{"name":"app","resources":{"requests":{"cpu":"400m","memory":"192Mi"},"limits":{"cpu":"800m","memory":"384Mi"}}}]'
manual_policy rec-persist rec-persist Recommend "$target" '{"templatePersistence":{"enabled":true,"when":"OnRecommendation"}}'
manual_policy rec-after rec-after Recommend "$target" '{"templatePersistence":{"enabled":true,"when":"AfterSuccessfulResize"}}'
template_of() {
  k -n "$ns" get deploy "$1" -o json |
    jq -r '.spec.template.spec.containers[0].resources | "\(.requests.cpu)/\(.limits.cpu)/\(.requests.memory)/\(.limits.memory)"'
}
wait_eq 90 "400m/800m/192Mi/384Mi" template_of rec-persist ||
  fail "template not persisted: $(template_of rec-persist); history $(history_of rec-persist)"
expect_eq "rec-persist generation after one template patch" "$(gen rec-persist)" "$((gen_persist + 1))"
# The status patch with the history entry follows the template patch.
one_template_patch() {
  history_of rec-persist | jq -e '
    ([.[] | select(.result == "TemplatePatched")] | length == 1) and
    ([.[] | select(.method == "InPlace")] | length == 0) and
    ([.[] | select(.result == "TemplatePatched")][0] | .method == "TemplatePersistence" and .resource == "template" and .reason == "OnRecommendation")'
}
wait_until 30 one_template_patch || fail "history: $(history_of rec-persist)"
wait_until 30 has_events rec-persist TemplatePatched || fail "no TemplatePatched Event"
wait_until 30 has_events rec-persist GitOpsDrift || fail "no GitOpsDrift Event for a Flux-applied Deployment"
drift=$(events_of rec-persist GitOpsDrift | head -n 1)
case $drift in
  *"Deployment rec-persist is applied by Flux (label kustomize.toolkit.fluxcd.io/name=apps)"*) ;;
  *) fail "GitOpsDrift note: $drift" ;;
esac
k -n "$ns" get events.events.k8s.io -o json | jq -e --arg p rec-persist \
  '[.items[] | select(.regarding.name == $p and .reason == "GitOpsDrift")][0].type == "Warning"' >/dev/null ||
  fail "GitOpsDrift is not a Warning"
log "Recommend + OnRecommendation patched the template: $(history_of rec-persist | jq -c '[.[] | {result, reason}]'); drift Event: $drift"

# The rollout the patch started creates pods at the recommendation; none is resized.
wait_all_at 120 rec-persist app "400m/800m/192Mi/384Mi" ||
  fail "the rollout's pods are not at the recommendation: $(spec_and_status rec-persist app)"
sleep 10
expect_eq "rec-persist generation later" "$(gen rec-persist)" "$((gen_persist + 1))"
expect_eq "TemplatePatched entries later" "$(history_count rec-persist TemplatePatched)" 1
read -r resize_ok _ < <(resize_counts)
expect_eq "/resize calls the apiserver answered under Recommend" "$((resize_ok - resize_ok0))" 0

# AfterSuccessfulResize under Recommend: the recommendation is in status, the template untouched.
k -n "$ns" get attunepolicy rec-after -o json | jq -e '.status.recommendations | length == 1' >/dev/null ||
  fail "rec-after has no recommendation: $(k -n "$ns" get attunepolicy rec-after -o json | jq -c .status)"
expect_eq "rec-after template" "$(template_of rec-after)" "500m/1/256Mi/512Mi"
expect_eq "rec-after generation" "$(gen rec-after)" "$gen_after"
expect_eq "rec-after TemplatePatched entries" "$(history_count rec-after TemplatePatched)" 0
oracle_check
