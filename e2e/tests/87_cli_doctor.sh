#!/usr/bin/env bash
# kubectl attune doctor on the real apiserver of this minor, beside a real
# attune-manager: the Capabilities doctor reports are exactly the ones the
# manager probed and logged at start (the same probe and decision, key by
# key); 1.32 has no pod-level rows; the in-place pod-level resize row follows
# the three-way declaredFeatures rule and names its source (declared by the
# nodes, or the git version fallback when no node declares anything), and a
# node that declares nothing beside declaring ones is reported (mixed
# cluster); the cgroup v2 row is WARN and optional; the CRDs, the manager
# (Lease leader, version from its Deployment), the webhook (the manager's
# own, in url mode: its caBundle valid and its endpoint answering over TLS
# verified by that caBundle; WARN once the manager is gone; "not installed"
# without one), and Prometheus (the harness's, healthy; a Service name
# skipped) rows; the `%-22s %-4s [%s] %s` table of docs/cli.md; exit 0.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/51_webhook_lib.bash"
. "$(dirname "$0")/87_cli_lib.bash"
require_cli
require_manager
apply_policy_crd
webhook_namespaces
apply_webhook_configuration
start_leading_manager start_webhook_manager
harness_manager_deployment v0.1.0-e2e
wait_until 30 sh -c "[ -n \"\$($KUBECTL get mutatingwebhookconfiguration $WH -o jsonpath='{.webhooks[0].clientConfig.caBundle}')\" ]" \
  || fail "the manager never wrote the caBundle of $WH"

# Policies whose Prometheus doctor probes (the harness's) or skips (a Service name).
k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: local-prom}
spec:
  targetRef: {kind: Deployment, name: web}
  metricsSource: {prometheus: {address: "$PROMETHEUS_URL"}}
  cpu: {}
  memory: {}
---
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: cluster-prom}
spec:
  targetRef: {kind: Deployment, name: api}
  metricsSource: {prometheus: {address: "http://prometheus.monitoring.svc:9090"}}
  cpu: {}
  memory: {}
YAML

out=$ATTUNE_RUN/doctor-$$.json
at_exit "rm -f $out"
doctor() { cli_rc doctor --manager-namespace "$ns" --webhook-configuration "$WH" -n "$ns" "$@"; }
doctor -o json
[ "$cli_status" = 0 ] || fail "doctor exited $cli_status: $cli_err $cli_out"
echo "$cli_out" >"$out"
jq -e '.failed == false' "$out" >/dev/null || fail "doctor says failed"

# The same decision as the manager's, key by key.
diff <(manager_capabilities) <(doctor_capabilities "$out") >&2 \
  || fail "doctor's capabilities differ from the manager's (manager: $(grep -m1 'capabilities source=' "$MGR_LOG"))"
log "capabilities match the manager's: $(doctor_capabilities "$out" | tr '\n' ' ')"

expect_eq "Kubernetes version" "$(row_status 'Kubernetes version' "$out")" ok
expect_eq "pods/resize" "$(row_status pods/resize "$out")" ok
cg=$(row "cgroup v2" "$out")
expect_eq "cgroup v2 status" "${cg%%|*}" WARN
jq -e '.rows[] | select(.name == "cgroup v2") | .required == false' "$out" >/dev/null || fail "the cgroup row is not optional"
case "$cg" in *"stat -fc %T /sys/fs/cgroup"*) ;; *) fail "cgroup row has no host check: $cg" ;; esac
minor=${K8S_MINOR#1.}
if [ "$minor" -ge 35 ]; then
  case "$cg" in *failCgroupV1*) ;; *) fail "cgroup row on $K8S_MINOR lacks the failCgroupV1 note: $cg" ;; esac
else
  case "$cg" in *failCgroupV1*) fail "cgroup row on $K8S_MINOR has the 1.35+ failCgroupV1 note: $cg" ;; esac
fi

# Pod-level rows: none on 1.32; else the three-way rule with its source.
pl=$(row "pod-level resize" "$out")
declaring=$(k get nodes -o json | jq '[.items[] | select(any(.status.conditions[]; .type == "Ready" and .status == "True"))
  | select((.status.declaredFeatures // []) | index("InPlacePodLevelResourcesVerticalScaling"))] | length')
if [ "$K8S_MINOR" = 1.32 ]; then
  [ -z "$pl" ] || fail "1.32 has a pod-level row: $pl"
  [ -z "$(row 'pod-level resources' "$out")" ] || fail "1.32 has a pod-level resources row"
else
  [ -n "$pl" ] || fail "no pod-level resize row on $K8S_MINOR"
  if [ "$declaring" -gt 0 ]; then
    case "$pl" in "ok|on: $declaring of "*" Ready node(s) declare InPlacePodLevelResourcesVerticalScaling"*) ;;
      *) fail "pod-level resize with $declaring declaring nodes: $pl" ;; esac
  else
    case "$pl" in "ok|"*"no Ready node declares features, so the git version decides"*"(fallback)"*) ;;
      *) fail "pod-level resize with no declaring node: $pl" ;; esac
  fi
  [ "$K8S_MINOR" = 1.36 ] && { case "$pl" in "ok|on: "*"(status.declaredFeatures)"*) ;; *) fail "1.36: in-place pod-level resize is not on from declared features: $pl" ;; esac; }
fi
log "pod-level resize: ${pl:-<no row on 1.32>}"

expect_eq "CRDs" "$(row_status CRDs "$out")" ok
mgr=$(row manager "$out")
case "$mgr" in "ok|running: Deployment $ns/attune-manager 1/1 ready; version v0.1.0-e2e; leader "*) ;; *) fail "manager row: $mgr" ;; esac
holder=$(k -n "$ns" get lease attune-manager -o jsonpath='{.spec.holderIdentity}')
case "$mgr" in *"leader $holder "*) ;; *) fail "manager row does not name the Lease holder $holder: $mgr" ;; esac
wh=$(row webhook "$out")
case "$wh" in "ok|pods.attune.io: caBundle valid "*" more, https://127.0.0.1:$WEBHOOK_PORT/mutate-v1-pod answers over TLS verified by the caBundle"*) ;;
  *) fail "webhook row: $wh" ;; esac
case "$wh" in *"workloads.attune.io: caBundle valid"*) ;; *) fail "webhook row lacks the workloads webhook: $wh" ;; esac
prom=$(jq -r '[.rows[] | select(.name == "Prometheus") | "\(.status)|\(.detail)"] | join("\n")' "$out")
grep -q "^ok|$PROMETHEUS_URL healthy (/-/healthy in [0-9]* ms) (policy $ns/local-prom)" <<<"$prom" || fail "Prometheus rows: $prom"
grep -q "^ok|http://prometheus.monitoring.svc:9090 skipped: " <<<"$prom" || fail "the Service-name Prometheus was not skipped: $prom"
expect_eq "RBAC (admin)" "$(row_status RBAC "$out")" ok

# The table: %-22s %-4s [%s] %s (docs/cli.md), exit 0.
doctor
[ "$cli_status" = 0 ] || fail "doctor (table) exited $cli_status"
bad=$(grep -cvE '^.{22} (ok  |WARN|FAIL) \[(required|optional)\] ' <<<"$cli_out" || true)
[ "$bad" = 0 ] || fail "lines outside the table format: $(grep -vE '^.{22} (ok  |WARN|FAIL) \[(required|optional)\] ' <<<"$cli_out")"
grep -q $'\x1b' <<<"$cli_out" && fail "colour codes although stdout is not a terminal"
echo "$cli_out" | sed 's/^/    /' >&2

# A mixed cluster: a node that declares nothing beside declaring ones.
if [ "$declaring" -gt 0 ]; then
  sim_node "e2e-quiet-$RANDOM" 2 4Gi '[]'
  doctor -o json
  echo "$cli_out" >"$out"
  pl=$(row "pod-level resize" "$out")
  case "$pl" in "WARN|on: "*"but not on e2e-quiet-"*) ;; *) fail "a mixed cluster: $pl" ;; esac
  [ "$cli_status" = 0 ] || fail "a mixed cluster failed doctor (exit $cli_status)"
  log "mixed cluster: $pl"
fi

# The manager (and its webhook) gone: the webhook row says so, optional (exit 0).
stop_manager || true
doctor -o json
echo "$cli_out" >"$out"
case "$(row webhook "$out")" in "WARN|pods.attune.io: https://127.0.0.1:$WEBHOOK_PORT/mutate-v1-pod not reachable"*) ;;
  *) fail "webhook row without the manager: $(row webhook "$out")" ;; esac
[ "$cli_status" = 0 ] || fail "doctor failed on an optional row (exit $cli_status)"
cli_rc doctor --manager-namespace "$ns" -n "$ns" -o json
case "$(jq -r '.rows[] | select(.name == "webhook") | .detail' <<<"$cli_out")" in "not installed: no MutatingWebhookConfiguration attune-webhook"*) ;;
  *) fail "without a configuration: $(jq -c '.rows[] | select(.name == "webhook")' <<<"$cli_out")" ;; esac
log "webhook without the manager: $(row webhook "$out" | cut -c1-100)..."
