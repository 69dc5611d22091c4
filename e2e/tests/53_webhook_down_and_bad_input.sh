#!/usr/bin/env bash
# Failure and bad input (docs/webhook.md): an AdmissionReview that is not one,
# sent straight to the webhook with curl over TLS (verified with the
# caBundle the manager published), gets HTTP 400 with the reason; a review
# without a request uid too; a well-formed one is answered with the echoed
# uid. Then the webhook is killed: pods are still created (failurePolicy
# Ignore), unsized, and the apiserver counts the calls it could not make.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/51_webhook_lib.bash"
webhook_test
deployment_with_policy web '{containers: [{name: app, image: attune.local/pause:1, resources: {requests: {cpu: "1", memory: 512Mi}}}]}'
set_recommendation web Deployment web app 250m 192Mi
start_webhook_manager
wait_webhook_called

ca="$ATTUNE_RUN/$ns-ca.pem"
webhook_ca_bundle > "$ca"
at_exit "rm -f '$ca'"
url="https://127.0.0.1:$WEBHOOK_PORT/mutate-v1-pod"
send() { curl -sS --max-time 5 --cacert "$ca" -H 'Content-Type: application/json' -o "$ATTUNE_RUN/$ns-body" -w '%{http_code}' --data-binary "$1" "$url"; }
body() { cat "$ATTUNE_RUN/$ns-body"; }
at_exit "rm -f '$ATTUNE_RUN/$ns-body'"

expect_eq "status of a truncated review" "$(send '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionRev')" 400
grep -q "invalid AdmissionReview: body is not JSON" "$ATTUNE_RUN/$ns-body" || fail "unclear error: $(body)"
expect_eq "status of a review without a uid" "$(send '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"operation":"CREATE"}}')" 400
grep -q "request.uid is missing" "$ATTUNE_RUN/$ns-body" || fail "unclear error: $(body)"
expect_eq "status of a v1beta1 review" "$(send '{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"x"}}')" 400
grep -q "want 'admission.k8s.io/v1'" "$ATTUNE_RUN/$ns-body" || fail "unclear error: $(body)"
expect_eq "status of a GET" "$(curl -sS --max-time 5 --cacert "$ca" -o /dev/null -w '%{http_code}' "$url")" 405
expect_eq "status of a well-formed review" "$(send '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1","kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","namespace":"nowhere","object":{"metadata":{},"spec":{"containers":[{"name":"a"}]}}}}')" 200
expect_eq "echoed uid" "$(body | jq -r '.response.uid + " " + (.response.allowed | tostring)')" "u-1 true"
[ "$(metric_sum attune_webhook_admissions_total 'result="malformed"')" -ge 3 ] || fail "malformed reviews were not counted"
log "malformed AdmissionReviews get 400 with the reason; a valid one is answered"
# The server's limits (docs/webhook.md "Limits"): a body that is not JSON is
# refused unread, and a declared body over the cap from its header alone.
expect_eq "status of a text/plain body" "$(curl -sS --max-time 5 --cacert "$ca" -H 'Content-Type: text/plain' \
  -o "$ATTUNE_RUN/$ns-body" -w '%{http_code}' --data-binary '{}' "$url")" 415
grep -q "Content-Type must be application/json" "$ATTUNE_RUN/$ns-body" || fail "unclear 415: $(body)"
head -c 7000000 /dev/zero | tr '\0' ' ' > "$ATTUNE_RUN/$ns-big"
at_exit "rm -f '$ATTUNE_RUN/$ns-big'"
expect_eq "status of a 7 MB body" "$(curl -sS --max-time 10 --cacert "$ca" -H 'Content-Type: application/json' \
  -o "$ATTUNE_RUN/$ns-body" -w '%{http_code}' --data-binary "@$ATTUNE_RUN/$ns-big" "$url" 2>/dev/null)" 413
[ "$(metric_sum attune_webhook_connection_events_total 'event="unsupported_media_type"')" -ge 1 ] || fail "the 415 was not counted"
[ "$(metric_sum attune_webhook_connection_events_total 'event="body_too_large"')" -ge 1 ] || fail "the 413 was not counted"
log "a text/plain body gets 415, a 7 MB body 413"
kill -0 "$MGR_PID" || fail "the manager died on bad input"

# Kill the webhook (the whole manager, SIGKILL: no graceful anything).
calls_before=$(apiserver_metric apiserver_admission_webhook_request_total "name=\"pods.attune.io\"")
fail_open_before=$(apiserver_metric apiserver_admission_webhook_fail_open_count "name=\"pods.attune.io\"")
kill_manager_hard "$MGR_PID"; MGR_PID=""
start=$(date +%s)
k -n "$ns" scale deployment web --replicas=2 >/dev/null
wait_eq 60 2 pod_count web || fail "pods were not created with the webhook down"
took=$(( $(date +%s) - start ))
for p in $(k -n "$ns" get pods -l app=web -o jsonpath='{.items[*].metadata.name}'); do
  expect_eq "$p requests (unsized)" "$(pod_requests "$ns" "$p" app)" "1 512Mi"
  expect_eq "$p annotation" "$(k -n "$ns" get pod "$p" -o jsonpath='{.metadata.annotations.attune\.io/initial-sizing}')" ""
done
fail_open_after=$(apiserver_metric apiserver_admission_webhook_fail_open_count "name=\"pods.attune.io\"")
log "webhook down: 2 pods created unsized in ${took}s; the apiserver failed open $((fail_open_after - fail_open_before)) time(s) (calls counted before: $calls_before)"
[ "$fail_open_after" -gt "$fail_open_before" ] || fail "the apiserver did not record failing open (apiserver_admission_webhook_fail_open_count)"
