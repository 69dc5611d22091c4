#!/usr/bin/env bash
# attune-manager's admission webhook end to end, on the real kube-apiserver
# (docs/webhook.md, CREATE): the apiserver calls it over TLS at a url
# clientConfig with the caBundle the manager bootstrapped; pods of a
# Deployment with a recommendation are born at the recommended size, with
# the sizing annotations; a scale from 0 to 1 of a workload an HPA holds at
# zero is sized (owner replicas are never read); a policy with a startup
# boost doubles the CPU request at CREATE and records attune.io/startup-boost-at.
# Its in-place restore once the boost's duration is over is the executor's.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/51_webhook_lib.bash"
webhook_test

pod='{containers: [{name: app, image: attune.local/pause:1, resources: {requests: {cpu: "1", memory: 512Mi}, limits: {memory: 1Gi}}}]}'
deployment_with_policy web "$pod"
deployment_with_policy queue-worker "$pod"
deployment_with_policy boosted "$pod" '{startupBoost: {multiplier: "2", duration: 15s}}'
k -n "$ns" apply -f - >/dev/null <<'YAML'
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: queue-worker}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: queue-worker}
  minReplicas: 1
  maxReplicas: 5
  metrics:
  - type: External
    external:
      metric: {name: queue_messages_ready}
      target: {type: AverageValue, averageValue: "30"}
YAML
set_recommendation web Deployment web app 250m 192Mi
set_recommendation queue-worker Deployment queue-worker app 300m 160Mi
set_recommendation boosted Deployment boosted app 200m 128Mi

start_webhook_manager
wait_webhook_called
log "the apiserver calls the webhook over TLS with the caBundle the manager bootstrapped"
expect_eq "caBundle certificates" "$(webhook_ca_bundle | grep -c 'BEGIN CERTIFICATE')" 1
expect_eq "clientConfig.url" "$(k get mutatingwebhookconfiguration "$WH" -o jsonpath='{.webhooks[0].clientConfig.url}')" \
  "https://127.0.0.1:$WEBHOOK_PORT/mutate-v1-pod"

# The manager sees the recommendations through its informer, a moment after
# the status writes: a server-side dry run of the next pod shows when.
wait_until 30 replicaset_of web || fail "no ReplicaSet for web"
wait_eq 30 250m next_pod_cpu web || fail "a dry-run pod of web is not sized: $(probe_pod_json "$(replicaset_of web)" "$(template_hash_of web)" | head -c 600)"

# Real pods: the ReplicaSet controller creates them, the webhook sizes them.
k -n "$ns" scale deployment web --replicas=2 >/dev/null
wait_eq 60 2 pod_count web || fail "web never got 2 pods"
for p in $(k -n "$ns" get pods -l app=web -o jsonpath='{.items[*].metadata.name}'); do
  expect_eq "$p requests" "$(pod_requests "$ns" "$p" app)" "250m 192Mi"
  expect_eq "$p memory limit (RequestsOnly keeps it)" \
    "$(k -n "$ns" get pod "$p" -o jsonpath='{.spec.containers[0].resources.limits.memory}')" 1Gi
  expect_eq "$p initial-sizing" "$(k -n "$ns" get pod "$p" -o jsonpath='{.metadata.annotations.attune\.io/initial-sizing}')" applied
  expect_eq "$p initial-sizing-policy" \
    "$(k -n "$ns" get pod "$p" -o jsonpath='{.metadata.annotations.attune\.io/initial-sizing-policy}')" "$ns/web"
done
log "web's pods were born at 250m/192Mi"

# The HPA holds queue-worker at zero (what an HPA controller with
# HPAScaleToZero writes; the harness runs none), then scales it to one.
k -n "$ns" patch hpa queue-worker --subresource=status --type=merge -p "$(jq -nc --arg t "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
  '{status: {currentReplicas: 0, desiredReplicas: 0, conditions: [{type: "ScaledToZero", status: "True",
    reason: "ScaledToZero", message: "no messages", lastTransitionTime: $t}]}}')" >/dev/null
expect_eq "queue-worker replicas" "$(k -n "$ns" get deployment queue-worker -o jsonpath='{.spec.replicas}')" 0
wait_eq 30 300m next_pod_cpu queue-worker || fail "queue-worker's next pod would not be sized"
k -n "$ns" scale deployment queue-worker --replicas=1 >/dev/null
wait_eq 60 1 pod_count queue-worker || fail "queue-worker never scaled up"
qp=$(k -n "$ns" get pods -l app=queue-worker -o jsonpath='{.items[0].metadata.name}')
expect_eq "scale-from-zero pod requests" "$(pod_requests "$ns" "$qp" app)" "300m 160Mi"
log "the 0 -> 1 scale-up pod of the HPA-held workload was sized"

# Startup boost: CPU request x 2 at CREATE, and when.
wait_eq 30 400m next_pod_cpu boosted || fail "boosted's next pod would not be boosted"
bp=$(scaled_pod boosted 1)
expect_eq "boosted pod requests" "$(pod_requests "$ns" "$bp" app)" "400m 128Mi"
at=$(boost_at "$bp")
created=$(k -n "$ns" get pod "$bp" -o jsonpath='{.metadata.creationTimestamp}')
delta=$(( $(date -u -d "$created" +%s) - $(date -u -d "$at" +%s) ))
[ "${delta#-}" -le 5 ] || fail "startup-boost-at $at is not the pod's creation time $created"
[ "$(metric_sum attune_startup_boost_total 'action="applied"')" -ge 1 ] || fail "attune_startup_boost_total did not count the boost"
log "boosted was born at 2 x 200m with startup-boost-at $at"

# The boost ends in place (the executor, Auto): once its 15 s are over the
# CPU request goes back to 200m in spec and status, without a restart, and
# the annotation is dropped; not before.
boost_state() { k -n "$ns" get pod "$bp" -o json | jq -r '"\(.spec.containers[0].resources.requests.cpu) \(.status.containerStatuses[0].resources.requests.cpu // "-") \(.status.containerStatuses[0].restartCount) \(.metadata.annotations["attune.io/startup-boost-at"] // "none")"'; }
restored() { [ "$(boost_state)" = "200m 200m 0 none" ]; }
wait_until 60 restored || fail "the boost was not restored in place: $(boost_state)"
ended=$(date -u +%s)
[ $(( ended - $(date -u -d "$at" +%s) )) -ge 15 ] || fail "the boost ended before its 15 s duration ($(( ended - $(date -u -d "$at" +%s) )) s)"
[ "$(metric_sum attune_startup_boost_total 'action="restored"')" -ge 1 ] || fail "attune_startup_boost_total did not count the restore"
log "the boost ended in place after $(( ended - $(date -u -d "$at" +%s) )) s: 200m, restartCount 0, annotation dropped"

# The metric the API names, and nothing failed.
[ "$(metric_sum attune_webhook_duration_seconds_count 'operation="pod_create"')" -ge 4 ] \
  || fail "attune_webhook_duration_seconds did not count the reviews"
