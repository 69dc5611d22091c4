#!/usr/bin/env bash
# kubectl attune migrate --from vpa on the real apiserver (docs/cli.md
# "migrate"): three VerticalPodAutoscalers created with kubectl (web: Auto
# with a "*" container policy, a container switched Off, minReplicas and a
# named container's bounds, which have no equivalent; off: updateMode Off;
# rc: a ReplicationController, which no policy can target) become
# AttunePolicies. --dry-run (=client) prints them and the apiserver accepts every one
# (kubectl apply --dry-run=server), --dry-run=server
# has it check them and stores nothing; stderr names each unmapped field; the
# real run creates them and kubectl reads back each mapped field; a second
# run leaves them alone, reports "already exists" and exits 1. Without the
# VPA CRD the command says so; --from anything else is a usage error.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/87_cli_lib.bash"
require_cli
apply_policy_crd
test_namespace

cli_rc migrate --from keda -n "$ns"
expect_eq "--from keda exit" "$cli_status" 2
grep -q 'accepted: vpa, attune-go' <<<"$cli_err" || fail "--from keda does not name the accepted values: $cli_err"

if ! k get crd verticalpodautoscalers.autoscaling.k8s.io >/dev/null 2>&1; then
  cli_rc migrate --from vpa -n "$ns" --dry-run
  expect_eq "no VPA CRD exit" "$cli_status" 1
  grep -q 'CRD.*is not installed' <<<"$cli_err" || fail "no VPA CRD: unclear error: $cli_err"
  k apply -f "$REPO_ROOT/e2e/crds/verticalpodautoscaler.yaml" >/dev/null || fail "the VPA CRD was refused"
  at_exit "k delete crd verticalpodautoscalers.autoscaling.k8s.io --wait=false >/dev/null 2>&1"
else
  log "HARNESS: the VPA CRD is already installed; the no-CRD error is not checked"
fi
k wait --for=condition=Established crd/verticalpodautoscalers.autoscaling.k8s.io --timeout=60s >/dev/null \
  || fail "the VPA CRD never became Established"

k -n "$ns" apply -f - >/dev/null <<'YAML' || fail "the VPAs were refused"
apiVersion: autoscaling.k8s.io/v1
kind: VerticalPodAutoscaler
metadata: {name: web}
spec:
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  updatePolicy: {updateMode: Auto, minReplicas: 2}
  resourcePolicy:
    containerPolicies:
    - containerName: "*"
      minAllowed: {cpu: 50m, memory: 64Mi}
      maxAllowed: {cpu: "2", memory: 1Gi}
      controlledValues: RequestsAndLimits
    - containerName: istio
      mode: "Off"
    - containerName: app
      maxAllowed: {cpu: 500m}
---
apiVersion: autoscaling.k8s.io/v1
kind: VerticalPodAutoscaler
metadata: {name: "off"}
spec:
  targetRef: {apiVersion: apps/v1, kind: StatefulSet, name: db}
  updatePolicy: {updateMode: "Off"}
---
apiVersion: autoscaling.k8s.io/v1
kind: VerticalPodAutoscaler
metadata: {name: rc}
spec:
  targetRef: {apiVersion: v1, kind: ReplicationController, name: legacy}
YAML

tmp=$(mktemp -d)
at_exit "rm -rf $tmp"

# --dry-run: the YAML stream goes straight into the apiserver's validation.
cli_rc migrate --from vpa -n "$ns" --dry-run
expect_eq "dry-run exit (rc cannot be migrated)" "$cli_status" 1
printf '%s\n' "$cli_out" >"$tmp/policies.yaml"
k -n "$ns" apply --dry-run=server -f "$tmp/policies.yaml" >"$tmp/apply.out" 2>&1 \
  || fail "the apiserver refused the printed policies: $(cat "$tmp/apply.out")"
expect_eq "dry-run policies accepted" "$(grep -c 'created (server dry run)' "$tmp/apply.out")" 2
expect_eq "dry-run created nothing" "$(k -n "$ns" get attunepolicy -o name | wc -l)" 0
for note in "$ns/web: spec.updatePolicy.minReplicas:" "$ns/web: spec.resourcePolicy.containerPolicies\[2\].maxAllowed:" \
  "$ns/rc: spec.targetRef:"; do
  grep -q "^warning: $note" <<<"$cli_err" || fail "no warning '$note' in: $cli_err"
done
grep -q "warning: $ns/off:" <<<"$cli_err" && fail "off has no unmapped field, but: $cli_err"

# --dry-run=client is the same stream; --dry-run=server has the apiserver check each one and stores nothing.
cli_rc migrate --from vpa -n "$ns" --dry-run=client
expect_eq "--dry-run=client output" "$cli_out" "$(cat "$tmp/policies.yaml")"
cli_rc migrate --from vpa -n "$ns" --dry-run=server
expect_eq "--dry-run=server exit" "$cli_status" 1
expect_eq "--dry-run=server output" "$(sort <<<"$cli_out")" \
  "$(printf 'attunepolicy.attune.io/off created (server dry run)\nattunepolicy.attune.io/web created (server dry run)')"
expect_eq "server dry run stored nothing" "$(k -n "$ns" get attunepolicy -o name | wc -l)" 0
cli_rc migrate --from vpa -n "$ns" --dry-run=yes
expect_eq "--dry-run=yes exit" "$cli_status" 2

# -o json: a List of the same two policies.
cli_rc migrate --from vpa -n "$ns" --dry-run -o json
expect_eq "dry-run -o json names" "$(jq -r '.kind + ":" + ([.items[].metadata.name] | sort | join(","))' <<<"$cli_out")" \
  "List:off,web"

# The real run: kubectl reads back each documented mapping.
cli_rc migrate --from vpa -n "$ns"
expect_eq "migrate exit (rc cannot be migrated)" "$cli_status" 1
grep -qx "attunepolicy.attune.io/web created" <<<"$cli_out" || fail "no 'web created' in: $cli_out"
grep -qx "attunepolicy.attune.io/off created" <<<"$cli_out" || fail "no 'off created' in: $cli_out"
k -n "$ns" get attunepolicy -o json >"$tmp/got.json"
expect_eq "policies" "$(jq -r '[.items[].metadata.name] | sort | join(",")' "$tmp/got.json")" "off,web"
web() { jq -c --arg p "$1" '.items[] | select(.metadata.name == "web") | getpath($p | split(".")) ' "$tmp/got.json"; }
off() { jq -c --arg p "$1" '.items[] | select(.metadata.name == "off") | getpath($p | split(".")) ' "$tmp/got.json"; }
expect_eq "web targetRef" "$(web spec.targetRef)" '{"kind":"Deployment","name":"web"}'
expect_eq "web source" "$(web spec.metricsSource.vpa.name)" '"web"'
expect_eq "web type" "$(web spec.updateStrategy.type)" '"Auto"'
expect_eq "web cpu bounds" "$(web spec.cpu | jq -c '[.minAllowed, .maxAllowed, .controlledValues]')" \
  '["50m","2","RequestsAndLimits"]'
expect_eq "web memory bounds" "$(web spec.memory | jq -c '[.minAllowed, .maxAllowed, .controlledValues]')" \
  '["64Mi","1Gi","RequestsAndLimits"]'
expect_eq "web excluded" "$(web spec.excludedContainers)" '["istio"]'
expect_eq "off targetRef" "$(off spec.targetRef)" '{"kind":"StatefulSet","name":"db"}'
expect_eq "off type" "$(off spec.updateStrategy.type)" '"Recommend"'
expect_eq "off source" "$(off spec.metricsSource.vpa.name)" '"off"'

# Again: both exist, are left alone and reported.
k -n "$ns" get attunepolicy web -o jsonpath='{.metadata.resourceVersion}' >"$tmp/rv"
cli_rc migrate --from vpa -n "$ns" web
expect_eq "second run exit" "$cli_status" 1
grep -q "attunepolicies.attune.io \"web\" already exists" <<<"$cli_err" || fail "no 'already exists' in: $cli_err"
expect_eq "web left alone" "$(k -n "$ns" get attunepolicy web -o jsonpath='{.metadata.resourceVersion}')" "$(cat "$tmp/rv")"
log "migrate --from vpa: dry-run accepted by the apiserver, notes named, fields mapped, existing policies kept"
