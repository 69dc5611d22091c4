#!/usr/bin/env bash
# The policy webhooks (docs/webhook.md, "Policies and defaults") on the real
# apiserver, registered from the shipped kustomize component (both
# configurations, renamed and scoped to this test) and served by the manager
# run as a process:
#  1. kubectl apply of an AttunePolicy whose schedule.timezone is Mars/Phobos
#     (a name the CRD's CEL pattern accepts) is denied with our message, and
#     nothing is stored; so is an AttuneDefaults and an
#     AttuneNamespaceDefaults with it. Europe/Berlin is admitted.
#  2. A policy with runtimeProfile java and an explicit
#     memory.allowDecrease: true (which the profile does not override) is
#     admitted, and kubectl prints the warnings on stderr.
#  3. weight: 0, which the CRD schema refuses, is defaulted to 100 by the
#     mutating webhook: kubectl get -o json reads back 100. Each decision
#     so far is counted in attune_webhook_validation_total under the Go
#     operator's operation names (exactly the 3 Mars/Phobos rejections).
#  4. Malformed AdmissionReviews sent with curl get 400 and the reason, and the
#     manager goes on judging.
#  5. kubectl attune doctor's policy-webhook row reads the validating
#     configuration kubectl shows: each of its webhooks' caBundle valid and
#     its url answering over TLS; with the manager stopped, not reachable.
#  6. Controls: with the manager stopped (failurePolicy Ignore) the Mars/Phobos
#     policy is stored, kubectl prints no warning, and weight 0 is refused by
#     the schema: the denial, the warnings and the default were the webhooks'.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/51_webhook_lib.bash"
. "$(dirname "$0")/87_cli_lib.bash"
require_local "loopback webhook URL"
require_manager
require_cli
apply_policy_crd
webhook_namespaces
WH="attune-e2e-$ns"
sel="attune.io/e2e-test"

# Both shipped configurations, named $WH (the manager writes the caBundle
# and url into each configuration of that name). Every webhook sees only
# objects labelled for this test: the AttuneDefaults one is cluster-scoped,
# so a namespaceSelector would not hold it back.
k kustomize "$REPO_ROOT/deploy/kustomize/overlays/webhook" 2>/dev/null \
  | k create --dry-run=client -o json -f - 2>/dev/null \
  | jq -s --arg wh "$WH" --arg sel "$sel" --arg ns "$ns" '[.[] | if .kind == "List" then .items[] else . end
        | select(.kind == "MutatingWebhookConfiguration" or .kind == "ValidatingWebhookConfiguration")
        | .metadata.name = $wh | .webhooks[].objectSelector = {matchLabels: {($sel): $ns}}]
        | {apiVersion: "v1", kind: "List", items: .}' > "$ATTUNE_RUN/$WH.json" \
  || fail "cannot render the shipped webhook configurations"
[ "$(jq '[.items[].kind] | sort | join(",")' -r "$ATTUNE_RUN/$WH.json")" = "MutatingWebhookConfiguration,ValidatingWebhookConfiguration" ] \
  || fail "the kustomize component does not ship both configurations: $(jq -c '[.items[].kind]' "$ATTUNE_RUN/$WH.json")"
vwc_paths=$(jq -r '.items[] | select(.kind == "ValidatingWebhookConfiguration") | [.webhooks[].clientConfig.service.path] | join(",")' "$ATTUNE_RUN/$WH.json")
expect_eq "HARNESS: the shipped validating webhooks" "$vwc_paths" "/validate-attunepolicy,/validate-attunedefaults,/validate-attunenamespacedefaults"
k apply -f "$ATTUNE_RUN/$WH.json" >/dev/null || fail "the webhook configurations were refused"
at_exit "k delete mutatingwebhookconfiguration,validatingwebhookconfiguration $WH --ignore-not-found >/dev/null 2>&1; rm -f '$ATTUNE_RUN/$WH.json'"

start_webhook_manager
wait_until 30 sh -c "[ -n \"\$($KUBECTL get validatingwebhookconfiguration $WH -o jsonpath='{.webhooks[2].clientConfig.caBundle}')\" ]" \
  || fail "the manager never wrote the caBundle of ValidatingWebhookConfiguration $WH: $(grep -i 'webhook configuration' "$MGR_LOG" | tail -3)"
expect_eq "the manager wrote the url of the validating webhook" \
  "$(k get validatingwebhookconfiguration "$WH" -o jsonpath='{.webhooks[0].clientConfig.url}')" \
  "https://127.0.0.1:$WEBHOOK_PORT/validate-attunepolicy"

# policy NAME TIMEZONE [MEMORY [SPEC_LINE]]: an AttunePolicy labelled for this test.
policy() {
  local memory=${3:-'{}'} extra=${4:-'runtimeProfile: generic'}
  cat <<YAML
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: $1, namespace: $ns, labels: {$sel: $ns}}
spec:
  targetRef: {kind: Deployment, name: $1}
  cpu: {}
  memory: $memory
  $extra
  updateStrategy:
    type: Auto
    schedule: {timezone: "$2", windows: [{start: "01:00", end: "05:00"}]}
YAML
}
# apply_policy NAME...: kubectl apply of `policy NAME...`; stdout and stderr to $out / $err.
apply_policy() {
  local rc=0
  policy "$@" | k apply -f - >"$ATTUNE_RUN/apply.out" 2>"$ATTUNE_RUN/apply.err" || rc=$?
  out=$(cat "$ATTUNE_RUN/apply.out"); err=$(cat "$ATTUNE_RUN/apply.err")
  return $rc
}

# The webhook may take a moment to be called after the caBundle appears
# (failurePolicy Ignore lets a write through until the apiserver trusts it),
# so the first denial is awaited on a dry run, which stores nothing.
denied_dry_run() { ! policy probe Mars/Phobos | k apply --dry-run=server -f - >/dev/null 2>&1; }
wait_until 30 denied_dry_run || fail "the apiserver never called the validating webhook; manager log: $(tail -5 "$MGR_LOG")"
rejected_before=$(metric_sum attune_webhook_validation_total 'result="rejected"')  # the dry-run probes

# 1. Mars/Phobos is denied with our message and not stored.
if apply_policy mars Mars/Phobos; then fail "the Mars/Phobos policy was admitted: $out"; fi
want='spec.updateStrategy.schedule.timezone "Mars/Phobos" is not a time zone of the zone database: not in the zone database (/usr/share/zoneinfo)'
case "$err" in
  *'admission webhook "policies.attune.io" denied the request: '"$want"*) ;;
  *) fail "kubectl did not print our denial: $err" ;;
esac
[ -z "$(k -n "$ns" get attunepolicy mars --ignore-not-found -o name)" ] || fail "the denied policy was stored"
log "Mars/Phobos denied: ${err#*denied the request: }"

apply_policy berlin Europe/Berlin || fail "the Europe/Berlin policy was refused: $err"
expect_eq "Europe/Berlin stored" "$(k -n "$ns" get attunepolicy berlin -o jsonpath='{.spec.updateStrategy.schedule.timezone}')" Europe/Berlin

AD="attune-e2e-$ns"
at_exit "k delete attunedefaults $AD --ignore-not-found >/dev/null 2>&1"
for kind in AttuneDefaults AttuneNamespaceDefaults; do
  if [ "$kind" = AttuneDefaults ]; then md="{name: $AD, labels: {$sel: $ns}}"; hook=defaults.attune.io
  else md="{name: team, namespace: $ns, labels: {$sel: $ns}}"; hook=namespacedefaults.attune.io; fi
  if k apply -f - >/dev/null 2>"$ATTUNE_RUN/apply.err" <<YAML; then fail "the Mars/Phobos $kind was admitted"; fi
apiVersion: attune.io/v1alpha1
kind: $kind
metadata: $md
spec:
  updateStrategy: {schedule: {timezone: Mars/Phobos, windows: [{start: "01:00", end: "05:00"}]}}
YAML
  err=$(cat "$ATTUNE_RUN/apply.err")
  case "$err" in *"admission webhook \"$hook\" denied the request: $want"*) ;; *) fail "$kind: kubectl did not print our denial: $err" ;; esac
  [ "$kind" = AttuneDefaults ] && got=$(k get attunedefaults "$AD" --ignore-not-found -o name) \
    || got=$(k -n "$ns" get attunenamespacedefaults team --ignore-not-found -o name)
  [ -z "$got" ] || fail "the denied $kind was stored"
done
log "AttuneDefaults and AttuneNamespaceDefaults with Mars/Phobos denied by their webhooks"

# 2. java + an explicit allowDecrease: true is admitted with the warnings.
apply_policy heap UTC '{allowDecrease: true}' 'runtimeProfile: java' || fail "the java policy was refused: $err"
case "$err" in
  *"Warning: runtimeProfile java advises against lowering memory in place"*"consider allowDecrease false, or a memory resizePolicy of RestartContainer"*) ;;
  *) fail "kubectl printed no runtimeProfile warning: '$err'" ;;
esac
case "$err" in *"Warning: memory.allowDecrease lowers memory in place, which can OOM-kill a container whose usage grows back"*) ;; *) fail "no allowDecrease warning: '$err'" ;; esac
expect_eq "the java policy is stored with allowDecrease true" \
  "$(k -n "$ns" get attunepolicy heap -o json | jq -c '[.spec.runtimeProfile, .spec.memory.allowDecrease]')" '["java",true]'
log "java + allowDecrease admitted; kubectl printed: $(grep -c '^Warning: ' <<<"$err") warnings"

# 3. weight 0 -> 100 on the stored object.
k apply -f - >/dev/null 2>"$ATTUNE_RUN/apply.err" <<YAML || fail "the weight 0 policy was refused: $(cat "$ATTUNE_RUN/apply.err")"
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: light, namespace: $ns, labels: {$sel: $ns}}
spec: {targetRef: {kind: Deployment, name: light}, cpu: {}, memory: {}, weight: 0}
YAML
expect_eq "weight 0 defaulted on the stored object" "$(k -n "$ns" get attunepolicy light -o json | jq '.spec.weight')" 100
policy_default=$(metric_sum attune_webhook_admissions_total 'operation="policy_default",result="mutated"')
[ "$policy_default" -ge 1 ] || fail "attune_webhook_admissions_total{operation=policy_default,result=mutated} is $policy_default"
log "weight 0 stored as 100 (kubectl get -o json)"

# The decisions so far, under the Go operator's metric and operation names:
# the Mars/Phobos AttunePolicy, AttuneDefaults and AttuneNamespaceDefaults
# CREATEs were rejected; the java and weight-0 CREATEs allowed and defaulted.
for series in 'validate_create",result="rejected' 'validate_create",result="allowed' \
  'defaults_validate_create",result="rejected' 'namespace_defaults_validate_create",result="rejected' \
  'defaulting",result="allowed'; do
  got=$(metric_sum attune_webhook_validation_total "operation=\"$series\"")
  [ "$got" -ge 1 ] || fail "attune_webhook_validation_total{operation=\"$series\"} is $got"
done
rejected=$(($(metric_sum attune_webhook_validation_total 'result="rejected"') - rejected_before))
[ "$rejected" -eq 3 ] || fail "rejections counted since the probes: $rejected, want the 3 Mars/Phobos CREATEs"
log "attune_webhook_validation_total counts the decisions under the Go operation names"

# 4. Malformed reviews, sent with curl over TLS (verified with the caBundle
# the manager published to the validating configuration), get 400 and the
# reason; the manager keeps serving (the next kubectl apply is judged).
ca="$ATTUNE_RUN/$ns-ca.pem"
k get validatingwebhookconfiguration "$WH" -o jsonpath='{.webhooks[0].clientConfig.caBundle}' | base64 -d > "$ca"
at_exit "rm -f '$ca' '$ATTUNE_RUN/$ns-body'"
send() { curl -sS --max-time 5 --cacert "$ca" -H 'Content-Type: application/json' -o "$ATTUNE_RUN/$ns-body" -w '%{http_code}' --data-binary "$2" "https://127.0.0.1:$WEBHOOK_PORT$1"; }
expect_eq "truncated review at /validate-attunepolicy" "$(send /validate-attunepolicy '{"apiVersion":"admission.k8s.io/v1","kind":"Adm')" 400
grep -q "^invalid AdmissionReview: " "$ATTUNE_RUN/$ns-body" || fail "unclear error: $(cat "$ATTUNE_RUN/$ns-body")"
expect_eq "review without a request at /mutate-attunepolicy" "$(send /mutate-attunepolicy '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}')" 400
grep -q "AdmissionReview has no request" "$ATTUNE_RUN/$ns-body" || fail "unclear error: $(cat "$ATTUNE_RUN/$ns-body")"
expect_eq "review without an object at /validate-attunenamespacedefaults" \
  "$(send /validate-attunenamespacedefaults '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-9","kind":{"group":"attune.io","version":"v1alpha1","kind":"AttuneNamespaceDefaults"},"operation":"CREATE","namespace":"x"}}')" 200
expect_eq "its answer" "$(jq -c '[.response.uid, .response.allowed, .response.status.message]' "$ATTUNE_RUN/$ns-body")" \
  '["u-9",false,"the request carries no AttuneNamespaceDefaults object"]'
if apply_policy mars Mars/Phobos; then fail "after malformed reviews the Mars/Phobos policy was admitted"; fi
case "$err" in *"denied the request: $want"*) ;; *) fail "after malformed reviews: $err" ;; esac
log "malformed reviews get 400 and the reason; the manager still judges the next apply"

# 5. doctor's policy-webhook row, against kubectl's view of the configuration.
# doctor_policy_webhook: run doctor; its policy-webhook row as STATUS|DETAIL in $row.
doctor_policy_webhook() {
  cli_rc doctor --manager-namespace "$ns" --webhook-configuration "$WH" -n "$ns" -o json
  row=$(jq -r '.rows[] | select(.name == "policy-webhook") | "\(.status)|\(.detail)"' <<<"$cli_out")
}
doctor_policy_webhook
case "$row" in ok\|*) ;; *) fail "doctor's policy-webhook row with the manager serving: $row (exit $cli_status: $cli_err)" ;; esac
for hook in $(k get validatingwebhookconfiguration "$WH" -o jsonpath='{.webhooks[*].name}'); do
  url=$(k get validatingwebhookconfiguration "$WH" -o json | jq -r --arg h "$hook" '.webhooks[] | select(.name == $h) | .clientConfig.url')
  case "$row" in *"$hook: caBundle valid "*" more, $url answers over TLS verified by the caBundle"*) ;;
    *) fail "the policy-webhook row does not show $hook at $url: $row" ;; esac
done
log "doctor: ${row:0:160}..."

# 6. Controls, the manager stopped: Ignore lets CEL alone decide.
stop_manager || fail "the manager did not stop"
doctor_policy_webhook
case "$row" in "WARN|policies.attune.io: https://127.0.0.1:$WEBHOOK_PORT/validate-attunepolicy not reachable"*) ;;
  *) fail "doctor's policy-webhook row without the manager: $row" ;; esac
apply_policy mars Mars/Phobos || fail "without the webhook the Mars/Phobos policy was refused (CEL alone should accept it): $err"
expect_eq "control: Mars/Phobos stored without the webhook" \
  "$(k -n "$ns" get attunepolicy mars -o jsonpath='{.spec.updateStrategy.schedule.timezone}')" Mars/Phobos
apply_policy heap2 UTC '{allowDecrease: true}' 'runtimeProfile: java' || fail "control: the java policy was refused: $err"
case "$err" in *Warning:*) fail "control: a warning without the webhook: $err" ;; esac
if k apply -f - >/dev/null 2>"$ATTUNE_RUN/apply.err" <<YAML; then fail "control: weight 0 was stored without the webhook"; fi
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: light2, namespace: $ns, labels: {$sel: $ns}}
spec: {targetRef: {kind: Deployment, name: light2}, cpu: {}, memory: {}, weight: 0}
YAML
grep -q "spec.weight" "$ATTUNE_RUN/apply.err" || fail "control: weight 0 refused, but not by the schema: $(cat "$ATTUNE_RUN/apply.err")"
log "controls: without the manager Mars/Phobos is stored, no warning is printed, and the schema refuses weight 0"
