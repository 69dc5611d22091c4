#!/usr/bin/env bash
# The CRD schema fragments of docs/lifecycle.md (spec.lifecycle and
# status.lifecycle, for the lifecycle wiring to paste into AttunePolicy) as
# the real apiserver applies them: the CEL rules compile and reject what the
# core's validate_lifecycle_spec rejects, with the rule's message; a full
# spec is accepted; and the status the core's encoder writes (every field,
# every bound) is stored without pruning. Runs the exact blocks from the doc
# in a throwaway CRD; fold it into the API schema test once the fragments are
# in the AttunePolicy CRD.
. "$(dirname "$0")/../lib.sh"
DRIVER=${DRIVER:-$REPO_ROOT/build/test/core/lifecycle_status_driver}
require_built "$DRIVER" lifecycle_status_driver
test_namespace

# fragment NAME INDENT: the yaml block after "<!-- crd-fragment: NAME -->".
fragment() {
  awk -v want="<!-- crd-fragment: $1 -->" '
    $0 == want { found = 1; next }
    found && /^```yaml/ { inblock = 1; next }
    inblock && /^```/ { exit }
    inblock { print }' "$REPO_ROOT/docs/lifecycle.md" | sed "s/^/$(printf '%*s' "$2" '')/"
}
spec_fragment=$(fragment spec.lifecycle 14)
status_fragment=$(fragment status.lifecycle 14)
[ -n "$spec_fragment" ] && [ -n "$status_fragment" ] || fail "no crd-fragment blocks in docs/lifecycle.md"

crd=lifecyclefragments.e2e.attune.io
at_exit "k delete crd $crd --wait=false >/dev/null 2>&1"
k apply -f - >/dev/null <<YAML
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: $crd}
spec:
  group: e2e.attune.io
  names: {kind: LifecycleFragment, plural: lifecyclefragments, singular: lifecyclefragment}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
$spec_fragment
          status:
            type: object
            properties:
$status_fragment
YAML
k wait --for=condition=Established "crd/$crd" --timeout=30s >/dev/null || fail "the fragment CRD is not Established"
wait_until 30 k -n "$ns" get lifecyclefragments || fail "lifecyclefragments not served"

object() {  # object NAME LIFECYCLE_JSON
  printf '{"apiVersion":"e2e.attune.io/v1","kind":"LifecycleFragment","metadata":{"name":"%s"},"spec":{"lifecycle":%s}}' "$1" "$2"
}
n=0
rejects() {  # rejects WANT_MESSAGE LIFECYCLE_JSON (SHOW=1 prints the apiserver's answer)
  n=$((n + 1))
  local out
  if out=$(object "bad-$n" "$2" | k -n "$ns" apply -f - 2>&1); then fail "accepted $2"; fi
  [ -z "${SHOW:-}" ] || echo "$out" >&2
  grep -qF -- "$1" <<<"$out" || fail "rejected $2 without '$1': $out"
}

object good '{"steps":[{"percent":10,"pause":"5m"},{"percent":50,"pause":"1m30s"},{"percent":100}],
  "initialDelay":"0","maxConcurrentResizes":3,
  "analysis":{"cpuThrottling":{"enabled":true,"thresholdFraction":0.25,"window":"10m","mode":"PercentageOfPods",
    "percentageOfPodsThreshold":50,"onMetricsUnavailable":"Fail"}},
  "persistence":{"mode":"AdmissionOnNextPodTemplateChange"},"revalidationToken":"t1"}' \
  | k -n "$ns" apply -f - >/dev/null || fail "a full spec.lifecycle was rejected"
object single '{"steps":[{"percent":100}],"analysis":{"cpuThrottling":{"window":"1h"}}}' \
  | k -n "$ns" apply -f - >/dev/null || fail "a single 100% step with a 1h window was rejected"

rejects "spec.lifecycle.steps must end at percent 100" '{"steps":[{"percent":10},{"percent":50}]}'
rejects "spec.lifecycle.steps percents must be strictly increasing" '{"steps":[{"percent":50},{"percent":50},{"percent":100}]}'
rejects "spec.lifecycle.steps percents must be strictly increasing" '{"steps":[{"percent":60},{"percent":20},{"percent":100}]}'
rejects "spec.lifecycle.steps percents must be strictly increasing" \
  '{"steps":[{"percent":1},{"percent":2},{"percent":3},{"percent":4},{"percent":5},{"percent":6},{"percent":7},{"percent":8},{"percent":100},{"percent":100}]}'
rejects "must have at most 10 items" \
  '{"steps":[{"percent":1},{"percent":2},{"percent":3},{"percent":4},{"percent":5},{"percent":6},{"percent":7},{"percent":8},{"percent":9},{"percent":10},{"percent":100}]}'
rejects "spec.lifecycle.steps[0].percent" '{"steps":[{"percent":0},{"percent":100}]}'
rejects "spec.lifecycle.steps[0].percent" '{"steps":[{"pause":"1m"}]}'
rejects "spec.lifecycle.steps[0].pause" '{"steps":[{"percent":100,"pause":"5 minutes"}]}'
rejects "spec.lifecycle.steps[0].pause" '{"steps":[{"percent":100,"pause":"-1m"}]}'
rejects "spec.lifecycle.analysis.cpuThrottling.window must be between 1m and 1h" '{"analysis":{"cpuThrottling":{"window":"59s"}}}'
rejects "spec.lifecycle.analysis.cpuThrottling.window must be between 1m and 1h" '{"analysis":{"cpuThrottling":{"window":"1h0m1s"}}}'
rejects "spec.lifecycle.analysis.cpuThrottling.thresholdFraction" '{"analysis":{"cpuThrottling":{"thresholdFraction":0}}}'
rejects "spec.lifecycle.analysis.cpuThrottling.thresholdFraction" '{"analysis":{"cpuThrottling":{"thresholdFraction":1.5}}}'
rejects "spec.lifecycle.analysis.cpuThrottling.mode" '{"analysis":{"cpuThrottling":{"mode":"Median"}}}'
rejects "spec.lifecycle.maxConcurrentResizes" '{"maxConcurrentResizes":51}'
rejects "spec.lifecycle.persistence.mode" '{"persistence":{"mode":"Patch"}}'
log "$n invalid specs rejected with the rule's message"

# The status as the core writes it, stored whole.
want=$("$DRIVER")
k -n "$ns" patch lifecyclefragment good --subresource=status --type=merge -p "{\"status\":$want}" >/dev/null \
  || fail "the core's status.lifecycle was rejected"
got=$(k -n "$ns" get lifecyclefragment good -o json | jq -cS '{lifecycle: .status.lifecycle}')
expect_eq "status.lifecycle read back" "$got" "$(jq -cS . <<<"$want")"
