#!/usr/bin/env bash
# The webhook validates a policy exactly as the controller does: a policy the
# controller reports Ready=False InvalidConfig (here a loopback Prometheus
# address, refused without --allow-local-metrics-addresses) sizes no pod at
# CREATE, although its status still holds a recommendation; the pod keeps
# its template's resources. Once the address is fixed, the same status sizes
# the next pod: only the validation held it back.
#
# The recommendation is written by the test into the status while the
# manager is a standby (another identity holds the Lease): a leader would
# clear it on InvalidConfig before the webhook could be caught using it.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/51_webhook_lib.bash"
webhook_test
le_flags=(--leader-elect --leader-election-namespace "$ns" --leader-election-id attune-e2e-wh)

pod='{containers: [{name: app, image: attune.local/pause:1, resources: {requests: {cpu: "1", memory: 512Mi}}}]}'
deployment_with_policy web "$pod"
k -n "$ns" patch attunepolicy web --type=merge \
  -p '{"spec":{"metricsSource":{"prometheus":{"address":"http://127.0.0.1:9090"}}}}' >/dev/null
ready_of() { k -n "$ns" get attunepolicy web -o json | jq -r '[.status.conditions[]? | select(.type == "Ready")][0] | "\(.status) \(.reason)"'; }

# 1. The controller (the leader) reports the policy InvalidConfig; it also
# bootstraps the webhook's Secret and caBundle, which a standby only reads.
start_webhook_manager "${le_flags[@]}"
wait_eq 30 "False InvalidConfig" ready_of || fail "the controller did not report InvalidConfig: $(ready_of)"
log "the controller reports web Ready=False InvalidConfig: $(k -n "$ns" get attunepolicy web -o jsonpath='{.status.conditions[?(@.type=="Ready")].message}')"
stop_manager || fail "the first manager did not stop"

# 2. Someone else holds the Lease; the policy status gets a recommendation.
k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: attune-e2e-wh}
spec: {holderIdentity: someone-else, leaseDurationSeconds: 3600, renewTime: "$(date -u +%Y-%m-%dT%H:%M:%S.000000Z)"}
YAML
k -n "$ns" patch attunepolicy web --subresource=status --type=merge -p "$(jq -nc --arg now "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
  '{status: {recommendations: [{workload: "web", kind: "Deployment", stale: false,
    containers: [{name: "app", confidence: 0.9, dataPoints: 96, lastUpdated: $now,
      current: {cpuRequest: "1", cpuLimit: "0", memoryRequest: "512Mi", memoryLimit: "0"},
      recommended: {cpuRequest: "250m", cpuLimit: "0", memoryRequest: "192Mi", memoryLimit: "0"}}]}]}}')" >/dev/null \
  || fail "the status recommendation was refused"

# 3. The webhook (on the standby) leaves the pod as its template says.
start_webhook_manager "${le_flags[@]}"
wait_webhook_called
wait_until 30 replicaset_of web || fail "no ReplicaSet for web"
before=$(metric_sum attune_webhook_skips_total 'reason="policy_validation_failed"')
bp=$(scaled_pod web 1)
expect_eq "pod of the invalid policy: requests" "$(pod_requests "$ns" "$bp" app)" "1 512Mi"
expect_eq "pod of the invalid policy: initial-sizing" \
  "$(k -n "$ns" get pod "$bp" -o jsonpath='{.metadata.annotations.attune\.io/initial-sizing}')" ""
after=$(metric_sum attune_webhook_skips_total 'reason="policy_validation_failed"')
[ "$after" -gt "$before" ] || fail "attune_webhook_skips_total{reason=policy_validation_failed} did not count ($before -> $after)"
grep -q "it fails validation (the controller reports InvalidConfig) namespace=$ns name=web" "$MGR_LOG" \
  || fail "no log line says why: $(grep -i 'webhook' "$MGR_LOG" | tail -3)"
expect_eq "web Ready (unchanged: the standby writes no status)" "$(ready_of)" "False InvalidConfig"
recommendation_published web web || fail "the status recommendation is gone"
log "pod $bp of the InvalidConfig policy was born at its template's 1/512Mi, counted as policy_validation_failed"

# 4. Control: the same status, a valid address: the next pod is sized.
k -n "$ns" patch attunepolicy web --type=merge \
  -p '{"spec":{"metricsSource":{"prometheus":{"address":"http://prometheus.monitoring:9090"}}}}' >/dev/null
wait_eq 30 250m next_pod_cpu web || fail "the fixed policy does not size: $(probe_pod_json "$(replicaset_of web)" "$(template_hash_of web)" | head -c 400)"
log "fixed, the same recommendation sizes the next pod at 250m"
