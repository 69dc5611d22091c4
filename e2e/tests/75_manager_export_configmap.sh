#!/usr/bin/env bash
# updateStrategy.export.configMap (docs/api.md, "The export ConfigMap"), read
# back with kubectl:
#  - one ConfigMap per workload, <policy>-<workload>-recommendations, with the
#    labels, the owner reference to the policy (its uid) and the data keys
#    holding the recommendation;
#  - a new recommendation is merged in: an annotation another tool put on the
#    ConfigMap survives, and the data follows;
#  - a policy without export writes none;
#  - the workload leaving the policy (attune.io/skip) deletes its ConfigMap;
#  - deleting the policy takes the rest with it (the garbage collector
#    follows the owner reference).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
require_manager
apply_policy_crd
test_namespace

web_deployment web 1
web_deployment api 1
web_deployment quiet 1
k -n "$ns" apply -f - >/dev/null <<'YAML' || fail "the policy was refused"
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: shop}
spec:
  targetRef: {kind: Deployment, selector: {matchLabels: {tier: web}}}
  metricsSource:
    manual:
      containers: [{name: app, resources: {requests: {cpu: 200m, memory: 128Mi}, limits: {cpu: 400m, memory: 300Mi}}}]
  cpu: {controlledValues: RequestsAndLimits}
  memory: {controlledValues: RequestsAndLimits}
  updateStrategy: {type: Recommend, export: {configMap: true}}
YAML
# quiet matches both policies; "other" takes it (same weight, smaller name)
# and does not export.
manual_policy other quiet Recommend '[{"name":"app","resources":{"requests":{"cpu":"100m"}}}]'

start_manager
cm_json() { k -n "$ns" get configmap "$1" -o json 2>/dev/null; }
cm_exists() { k -n "$ns" get configmap "$1" >/dev/null 2>&1; }
wait_until 60 cm_exists shop-web-recommendations || fail "no ConfigMap shop-web-recommendations: $(k -n "$ns" get cm -o name | tr '\n' ' ')"
wait_until 30 cm_exists shop-api-recommendations || fail "no ConfigMap shop-api-recommendations"
policy_uid=$(k -n "$ns" get attunepolicy shop -o jsonpath='{.metadata.uid}')
cm=$(cm_json shop-web-recommendations)
log "ConfigMap: $(jq -c '{labels: .metadata.labels, owners: .metadata.ownerReferences, data}' <<<"$cm")"
expect_eq "labels" "$(jq -c '.metadata.labels' <<<"$cm")" \
  '{"attune.io/export-schema":"v1","attune.io/policy":"shop","attune.io/workload":"web"}'
expect_eq "owner" "$(jq -c '[.metadata.ownerReferences[] | {apiVersion, kind, name, uid, controller}]' <<<"$cm")" \
  "[{\"apiVersion\":\"attune.io/v1alpha1\",\"kind\":\"AttunePolicy\",\"name\":\"shop\",\"uid\":\"$policy_uid\",\"controller\":true}]"
expect_eq "data" "$(jq -c '.data | del(.["generated-at"], .["last-updated"], .["app.confidence"])' <<<"$cm")" \
  '{"app.cpu-limit":"400m","app.cpu-request":"200m","app.memory-limit":"300Mi","app.memory-request":"128Mi","kind":"Deployment","namespace":"'"$ns"'","policy":"shop","schema-version":"v1","workload":"web"}'
jq -e '.data["generated-at"] | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$")' <<<"$cm" >/dev/null \
  || fail "generated-at is not RFC 3339: $(jq -c .data <<<"$cm")"
jq -e '.data["app.confidence"] | test("^[0-9]+\\.[0-9]{2}$")' <<<"$cm" >/dev/null || fail "confidence: $(jq -c .data <<<"$cm")"
# The policy without export wrote nothing.
sleep 3
cm_exists other-quiet-recommendations && fail "a policy without export.configMap wrote a ConfigMap"
cm_exists shop-quiet-recommendations && fail "the outranked policy exported the workload it lost"

# Another tool's annotation survives the next write (a merge patch).
k -n "$ns" annotate configmap shop-web-recommendations argocd.argoproj.io/tracking-id=shop:ConfigMap >/dev/null
k -n "$ns" patch attunepolicy shop --type merge -p \
  '{"spec":{"metricsSource":{"manual":{"containers":[{"name":"app","resources":{"requests":{"cpu":"300m","memory":"128Mi"},"limits":{"cpu":"600m","memory":"300Mi"}}}]}}}}' >/dev/null
web_cpu() { cm_json shop-web-recommendations | jq -r '.data["app.cpu-request"]'; }
wait_eq 60 300m web_cpu || fail "the ConfigMap did not follow the new recommendation: $(web_cpu)"
expect_eq "the other tool's annotation after the merge" \
  "$(cm_json shop-web-recommendations | jq -r '.metadata.annotations["argocd.argoproj.io/tracking-id"]')" "shop:ConfigMap"
log "merged: cpu-request $(web_cpu), annotation kept"

# The workload leaves the policy: its ConfigMap goes, the other stays.
k -n "$ns" annotate deploy web attune.io/skip=true >/dev/null
gone() { ! cm_exists "$1"; }
wait_until 60 gone shop-web-recommendations || fail "shop-web-recommendations outlived the workload's opt-out"
cm_exists shop-api-recommendations || fail "shop-api-recommendations went with the other workload"
log "opted-out workload's ConfigMap deleted"

# Deleting the policy takes its ConfigMaps (owner reference, garbage collector).
k -n "$ns" delete attunepolicy shop --wait=true >/dev/null
wait_until 60 gone shop-api-recommendations || fail "shop-api-recommendations outlived its policy"
log "policy deleted: its ConfigMap was garbage-collected"
grep -q 'recommendation export failed' "$MGR_LOG" && { grep 'recommendation export failed' "$MGR_LOG" | head -3 >&2; fail "an export write failed"; }
true
