#!/usr/bin/env bash
# kubectl attune explain says why a policy sizes and resizes nothing: its
# merged settings fail validation (a containerPolicies entry whose
# minAllowed exceeds the maxAllowed it inherits, a rule no manager flag
# relaxes). A real attune-manager reports the policy Ready=False
# InvalidConfig; explain, in JSON and in its table, gives the very message
# kubectl reads back from that Ready condition (policy.configError and a
# `config` reason), its verdict is "not resized" with no history, and the
# workload's pod keeps its template's resources. Control: with the entry
# removed, the manager no longer reports InvalidConfig and explain names no
# configuration error.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/87_cli_lib.bash"
require_cli
require_manager
apply_policy_crd
test_namespace

k -n "$ns" apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: attune.local/pause:1, resources: {requests: {cpu: 500m, memory: 256Mi}}}]}
YAML
# A Service name, not a loopback address: what fails is the bounds rule alone,
# whatever --allow-local-metrics-addresses says.
k -n "$ns" apply -f - >/dev/null <<'YAML'
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: web}
spec:
  targetRef: {kind: Deployment, name: web}
  metricsSource: {prometheus: {address: "http://prometheus.monitoring:9090"}}
  cpu: {maxAllowed: "1"}
  memory: {}
  containerPolicies: [{containerName: app, cpu: {minAllowed: "2"}}]
  updateStrategy: {type: Auto}
YAML
ready_of() { k -n "$ns" get attunepolicy web -o json | jq -r '[.status.conditions[]? | select(.type == "Ready")][0] | "\(.status) \(.reason)"'; }
ready_message() { k -n "$ns" get attunepolicy web -o jsonpath='{.status.conditions[?(@.type=="Ready")].message}'; }

start_leading_manager
wait_eq 60 "False InvalidConfig" ready_of || fail "the manager did not report InvalidConfig: $(ready_of) $(ready_message)"
message=$(ready_message)
log "the manager reports web Ready=False InvalidConfig: $message"
grep -q 'minAllowed 2 exceeds maxAllowed 1' <<<"$message" || fail "InvalidConfig for another reason: $message"

# 1. explain -o json: the validation failure, as kubectl reads it back.
cli_rc explain deployment/web -n "$ns" -o json
[ "$cli_status" = 0 ] || fail "explain exited $cli_status: $cli_err"
report=$cli_out
expect_eq "explain's policy" "$(jq -r .policy.name <<<"$report")" web
expect_eq "explain's phase (the Ready reason)" "$(jq -r .policy.phase <<<"$report")" InvalidConfig
expect_eq "explain's configError (the Ready message)" "$(jq -r .policy.configError <<<"$report")" "$message"
expect_eq "explain's config reason" "$(jq -r '[.reasons[] | select(.kind == "config")][0].text' <<<"$report")" \
  "policy web has no valid settings, so it sizes and resizes nothing: $message"
expect_eq "explain's verdict" "$(jq -r .verdict <<<"$report")" "not resized"
expect_eq "explain's history" "$(jq -c .history <<<"$report")" "[]"

# 2. Nothing was sized or resized: no recommendation, the template's requests.
expect_eq "status.recommendations" "$(k -n "$ns" get attunepolicy web -o json | jq -c '.status.recommendations // []')" "[]"
pod=$(k -n "$ns" get pods -l app=web -o jsonpath='{.items[0].metadata.name}')
[ -n "$pod" ] || fail "no pod for web"
expect_eq "pod $pod requests" "$(k -n "$ns" get pod "$pod" -o jsonpath='{.spec.containers[0].resources.requests.cpu} {.spec.containers[0].resources.requests.memory}')" \
  "500m 256Mi"

# 3. The table says it too.
cli_rc explain deployment/web -n "$ns"
[ "$cli_status" = 0 ] || fail "explain exited $cli_status: $cli_err"
echo "$cli_out" | sed 's/^/    /' >&2
grep -qF -- "  - policy web has no valid settings, so it sizes and resizes nothing: $message" <<<"$cli_out" \
  || fail "explain's table does not name the validation failure"
grep -qF -- "policy web (Auto, InvalidConfig)" <<<"$cli_out" || fail "explain's table lacks the policy's phase"

# 4. Control: without the entry the policy validates; explain names no error.
k -n "$ns" patch attunepolicy web --type=json -p '[{"op":"remove","path":"/spec/containerPolicies"}]' >/dev/null
wait_until 60 sh -c "[ \"\$($KUBECTL -n $ns get attunepolicy web -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].reason}')\" != InvalidConfig ]" \
  || fail "the fixed policy is still InvalidConfig: $(ready_message)"
log "fixed, web is $(ready_of): $(ready_message)"
cli_rc explain deployment/web -n "$ns" -o json
[ "$cli_status" = 0 ] || fail "explain exited $cli_status: $cli_err"
expect_eq "explain's configError once fixed" "$(jq -r .policy.configError <<<"$cli_out")" null
expect_eq "explain's config reasons once fixed" "$(jq -c '[.reasons[] | select(.kind == "config")]' <<<"$cli_out")" "[]"
