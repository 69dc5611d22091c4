#!/usr/bin/env bash
# status.workloads.discovered counts every workload the targetRef matches, as
# the Go Attune does (docs/api.md, "What the manager writes today"), read back
# with kubectl:
#  - a workload a heavier policy wins counts for the loser too, but only the
#    winner has a recommendation for it;
#  - a policy whose only match went to a heavier one says so in Ready
#    (NoWorkloadsFound, "another policy outranks it"), not "check the targetRef";
#  - a workload that opts out (attune.io/skip) still counts as discovered and
#    leaves withRecommendations.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
require_manager
apply_policy_crd
test_namespace

web_deployment web 1
web_deployment api 1
containers='[{"name":"app","resources":{"requests":{"cpu":"200m","memory":"128Mi"}}}]'
# shop matches web and api by label; heavy takes api by name (weight 500 over
# the default 100); lonely targets only api, and loses it to heavy.
k -n "$ns" apply -f - >/dev/null <<YAML || fail "the policy was refused"
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: shop}
spec:
  targetRef: {kind: Deployment, selector: {matchLabels: {tier: web}}}
  metricsSource: {manual: {containers: $containers}}
  cpu: {controlledValues: RequestsOnly}
  memory: {controlledValues: RequestsOnly}
  updateStrategy: {type: Recommend}
YAML
manual_policy heavy api Recommend "$containers" '{}' '{"weight": 500}'
manual_policy lonely api Recommend "$containers"

start_manager
counts() { workload_counts "$1" | jq -c '{discovered, withRecommendations}'; }
want_counts() { [ "$(counts "$1")" = "$2" ]; }
wait_until 60 want_counts shop '{"discovered":2,"withRecommendations":1}' \
  || fail "shop: $(workload_counts shop), want discovered 2 (web, and api which heavy wins), 1 with a recommendation"
wait_until 30 want_counts heavy '{"discovered":1,"withRecommendations":1}' || fail "heavy: $(workload_counts heavy)"
wait_until 30 want_counts lonely '{"discovered":1,"withRecommendations":0}' || fail "lonely: $(workload_counts lonely)"
log "shop $(counts shop), heavy $(counts heavy), lonely $(counts lonely)"
expect_eq "shop's recommendations" \
  "$(k -n "$ns" get attunepolicy shop -o json | jq -c '[.status.recommendations[].workload]')" '["web"]'

ready_message() {
  k -n "$ns" get attunepolicy "$1" -o json | jq -r '[.status.conditions[] | select(.type == "Ready")][0].message'
}
expect_eq "lonely's Ready" "$(condition_of lonely Ready)" "False NoWorkloadsFound"
case "$(ready_message lonely)" in
  *"matches 1 workload, but none is managed by this policy: another policy outranks it"*) ;;
  *) fail "lonely's Ready message does not say why: $(ready_message lonely)" ;;
esac
log "lonely: $(ready_message lonely)"

# web opts out: it is still matched, no longer managed.
k -n "$ns" annotate deploy web attune.io/skip=true >/dev/null
wait_until 60 want_counts shop '{"discovered":2,"withRecommendations":0}' \
  || fail "after web's opt-out, shop: $(workload_counts shop), want discovered 2, none with a recommendation"
wait_eq 30 "False NoWorkloadsFound" condition_of shop Ready \
  || fail "shop's Ready after the opt-out: $(condition_of shop Ready)"
case "$(ready_message shop)" in
  *"matches 2 workloads, but none is managed"*) ;;
  *) fail "shop's Ready message: $(ready_message shop)" ;;
esac
log "after the opt-out: shop $(counts shop), $(ready_message shop)"
