#!/usr/bin/env bash
# Deferred persistence (docs/webhook.md, persistence.mode
# AdmissionOnNextPodTemplateChange) on the real apiserver: with a validated
# revision awaiting persistence in the policy's status (set up by the test;
# the lifecycle reconciler writes it for real), a template-changing update
# (kubectl set env) gets the validated resources and the revision
# annotations (docs/api.md#annotations-and-labels), and its rollout's pods
# carry them; an
# unrelated update (a label on the Deployment, a scale) is left untouched.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/51_webhook_lib.bash"
webhook_test
# A Canary policy: no sizing at CREATE, the lifecycle owns what pods get.
deployment_with_policy web '{containers: [{name: app, image: attune.local/pause:1, resources: {requests: {cpu: "1", memory: 512Mi}}}]}' \
  '{}' '{}' '{type: Canary, canary: {percentage: 10, observationPeriod: 5m}}' 1
set_validated_candidate web Deployment web rev-00000000000000a1 app 200m 192Mi
start_webhook_manager
wait_webhook_called

tmpl() { k -n "$ns" get deployment web -o json | jq -r '.spec.template.spec.containers[0].resources.requests | "\(.cpu) \(.memory)"'; }
ann() { k -n "$ns" get deployment web -o json | jq -r --arg k "$1" '.metadata.annotations[$k] // ""'; }
tann() { k -n "$ns" get deployment web -o json | jq -r --arg k "$1" '.spec.template.metadata.annotations[$k] // ""'; }
# When the manager has seen the entry: a server-side dry run of the update shows it.
dry_env() { k -n "$ns" set env deployment/web "PROBE=$RANDOM" --dry-run=server -o json | jq -r '.spec.template.spec.containers[0].resources.requests.cpu'; }
wait_eq 30 200m dry_env || fail "a template change would not get the candidate: $(k -n "$ns" set env deployment/web PROBE=1 --dry-run=server -o json 2>&1 | head -c 600)"
expect_eq "template after dry runs" "$(tmpl)" "1 512Mi"

# An unrelated update first: nothing happens.
k -n "$ns" label deployment web team=a >/dev/null
k -n "$ns" scale deployment web --replicas=2 >/dev/null
expect_eq "template after a label and a scale" "$(tmpl)" "1 512Mi"
expect_eq "persisted-revision after a label" "$(ann attune.io/persisted-revision)" ""

# The next template change carries the validated resources.
k -n "$ns" set env deployment/web GREETING=hello >/dev/null
expect_eq "template resources" "$(tmpl)" "200m 192Mi"
expect_eq "the update's own change" "$(k -n "$ns" get deployment web -o jsonpath='{.spec.template.spec.containers[0].env[0].value}')" hello
expect_eq "persisted-revision" "$(ann attune.io/persisted-revision)" rev-00000000000000a1
expect_eq "persisted-policy" "$(ann attune.io/persisted-policy)" web
expect_eq "template revision" "$(tann attune.io/revision)" rev-00000000000000a1
log "kubectl set env carried the validated revision into the template"

# Its rollout: the new pods are born with it.
wait_eq 90 2 sh -c "$KUBECTL -n $ns get pods -l app=web -o json | jq '[.items[] | select(.metadata.deletionTimestamp == null and .metadata.annotations[\"attune.io/revision\"] == \"rev-00000000000000a1\")] | length'" \
  || fail "the rollout's pods do not carry the revision"
for p in $(k -n "$ns" get pods -l app=web -o json | jq -r '.items[] | select(.metadata.annotations["attune.io/revision"] == "rev-00000000000000a1") | .metadata.name'); do
  expect_eq "$p requests" "$(pod_requests "$ns" "$p" app)" "200m 192Mi"
done

# A newer validated revision appears; an unrelated update still does not take it.
set_validated_candidate web Deployment web rev-00000000000000b2 app 300m 256Mi
wait_eq 30 300m dry_env || fail "the manager never saw the newer revision"
# (Not metadata.generation: a Deployment's strategy bumps it on annotation changes too.)
template_before=$(k -n "$ns" get deployment web -o json | jq -cS .spec.template)
k -n "$ns" label deployment web team=b --overwrite >/dev/null
k -n "$ns" annotate deployment web note=unrelated >/dev/null
expect_eq "template after unrelated updates" "$(tmpl)" "200m 192Mi"
expect_eq "persisted-revision after unrelated updates" "$(ann attune.io/persisted-revision)" rev-00000000000000a1
expect_eq "the whole template after unrelated updates" "$(k -n "$ns" get deployment web -o json | jq -cS .spec.template)" "$template_before"
log "label and annotation updates were left alone"
