#!/usr/bin/env bash
# The VPA and Manual sources and the three defaults tiers, through
# attune-manager and the real apiserver (docs/recommender.md), observed with kubectl:
#  - a VerticalPodAutoscaler (the VPA CRD from e2e/crds, served by the real
#    apiserver) with a recommendation gives each selection's bound, through
#    the chain at full confidence: Target 250m, LowerBound 100m, UpperBound 1;
#  - the merge: cpu overhead 40 comes from the AttuneNamespaceDefaults (it
#    beats the AttuneDefaults' 10), memory overhead 15 from the AttuneDefaults
#    (the namespace tier leaves it unset), and a policy's own overhead 20 beats
#    both; minimumDataPoints 1 from the AttuneDefaults reaches the counters.
#    The explanations show each value;
#  - the Manual overlay on the live baseline: the explicit cpu request
#    replaces the live one, the memory request and limit are inherited.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/recommend_lib.bash"
require_local "simulated nodes"
require_manager
apply_policy_crd
test_namespace

# The VPA API must be served before the manager starts (it looks at once, then every minute).
if ! k get crd verticalpodautoscalers.autoscaling.k8s.io >/dev/null 2>&1; then
  k apply -f "$REPO_ROOT/e2e/crds/verticalpodautoscaler.yaml" >/dev/null || fail "the VPA CRD was refused"
  at_exit "k delete crd verticalpodautoscalers.autoscaling.k8s.io --wait=false >/dev/null 2>&1"
fi
k wait --for=condition=Established crd/verticalpodautoscalers.autoscaling.k8s.io --timeout=60s >/dev/null \
  || fail "the VPA CRD never became Established"

# The cluster tier is cluster-scoped: its name is this test's, and it goes with it.
k get attunedefaults -o name | grep -q . && skip "an AttuneDefaults exists already; this test needs the cluster tier to itself"
k apply -f - >/dev/null <<'YAML'
apiVersion: attune.io/v1alpha1
kind: AttuneDefaults
metadata: {name: e2e-73}
spec:
  cpu: {overhead: "10"}
  memory: {overhead: "15"}
  metricsSource: {minimumDataPoints: 1}
YAML
at_exit "k delete attunedefaults e2e-73 --wait=false >/dev/null 2>&1"
k -n "$ns" apply -f - >/dev/null <<'YAML'
apiVersion: attune.io/v1alpha1
kind: AttuneNamespaceDefaults
metadata: {name: team}
spec:
  cpu: {overhead: "40"}
YAML

for d in v-target v-lower v-upper; do loaded_deployment "$d" 100m 64Mi; done
loaded_deployment man 100m 64Mi 1 500m 256Mi '{memory: 512Mi}'
k -n "$ns" apply -f - >/dev/null <<'YAML'
apiVersion: autoscaling.k8s.io/v1
kind: VerticalPodAutoscaler
metadata: {name: shared}
spec:
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: v-target}
YAML
k -n "$ns" patch vpa shared --subresource=status --type=merge -p '{"status":{"recommendation":{"containerRecommendations":[
  {"containerName":"app","target":{"cpu":"250m","memory":"256Mi"},"lowerBound":{"cpu":"100m","memory":"256Mi"},
   "upperBound":{"cpu":"1","memory":"256Mi"}}]}}}' >/dev/null || fail "could not write the VPA's status"

policy p-target v-target '{"vpa":{"name":"shared","selection":"Target"}}'
policy p-lower v-lower '{"vpa":{"name":"shared","selection":"LowerBound"}}'
policy p-upper v-upper '{"vpa":{"name":"shared","selection":"UpperBound"}}' '{"cpu":{"overhead":"20"}}'
policy p-manual man '{"manual":{"containers":[{"name":"app","resources":{"requests":{"cpu":"200m"}}}]}}'
# HARNESS: the manager watches every namespace and this test counts every
# Prometheus query it makes, so an earlier test's namespace that is still
# terminating (its policies still there) must be gone first.
no_terminating_namespace() { [ -z "$(k get namespaces -o jsonpath='{.items[?(@.status.phase=="Terminating")].metadata.name}')" ]; }
wait_until 120 no_terminating_namespace || fail "HARNESS: a namespace is still terminating after 120 s"
start_manager

for p in p-target:v-target p-lower:v-lower p-upper:v-upper p-manual:man; do
  wait_until 60 has_recommendation "${p%%:*}" "${p##*:}" || fail "no recommendation for ${p##*:}: $(policy_json "${p%%:*}" | jq -c .status)"
done
app() { recommendation "$1" "$2" | jq -c '.containers[] | select(.name == "app")'; }

# VPA: 500m current; the bound x (1 + overhead), then the +-50% change cap.
#   Target     250m x 1.4 = 350m
#   LowerBound 100m x 1.4 = 140m, -72%: held at 500m x 0.5 = 250m
#   UpperBound 1    x 1.2 = 1.2,  +140%: held at 500m x 1.5 = 750m (the policy's own overhead 20)
expect_eq "Target" "$(app p-target v-target | jq -r .recommended.cpuRequest)" 350m
expect_eq "LowerBound" "$(app p-lower v-lower | jq -r .recommended.cpuRequest)" 250m
expect_eq "UpperBound" "$(app p-upper v-upper | jq -r .recommended.cpuRequest)" 750m
expect_eq "LowerBound capped" "$(app p-lower v-lower | jq -r .explanation.cpu.changeFilterApplied)" max_change_capped
expect_eq "VPA confidence" "$(app p-target v-target | jq -r .confidence)" 1
[[ "$(app p-target v-target | jq -r .explanation.cpu.finalAdjustment)" == *"source: VPA"* ]] || fail "no 'source: VPA' note"
# The tiers: cpu 40 (namespace) or 20 (policy), memory 15 (cluster).
expect_eq "cpu overhead, namespace tier" "$(app p-target v-target | jq -r .explanation.cpu.overhead)" 40
expect_eq "cpu overhead, policy tier" "$(app p-upper v-upper | jq -r .explanation.cpu.overhead)" 20
expect_eq "memory overhead, cluster tier" "$(app p-target v-target | jq -r .explanation.memory.overhead)" 15
expect_eq "minimumDataPoints, cluster tier" "$(policy_json p-target | jq -r .status.workloads.dataPointsRequired)" 1
wait_ready p-target "True Monitoring" 10

# Manual: the explicit key replaces the live value, the rest is the live baseline.
m=$(app p-manual man)
expect_eq "manual current" "$(jq -cS .current <<<"$m")" '{"cpuLimit":"0","cpuRequest":"500m","memoryLimit":"512Mi","memoryRequest":"256Mi"}'
expect_eq "manual recommended" "$(jq -cS .recommended <<<"$m")" '{"cpuLimit":"0","cpuRequest":"200m","memoryLimit":"512Mi","memoryRequest":"256Mi"}'
expect_eq "manual confidence" "$(jq -r .confidence <<<"$m")" 1

# A VPA read is not a Prometheus query; nothing queried Prometheus here.
expect_eq "prometheus queries" "$(metric_sum attune_prometheus_query_duration_seconds_count)" 0
