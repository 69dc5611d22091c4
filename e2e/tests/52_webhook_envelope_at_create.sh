#!/usr/bin/env bash
# The pod-level envelope at CREATE (docs/webhook.md, "The envelope at CREATE"), decided on the
# probed fact that the apiserver keeps spec.resources (1.34+; 1.33 drops it):
# a pod whose template has spec.resources is created with the envelope
# raised to cover the sized containers; under RequestsOnly a Burstable
# envelope whose limit would have to rise is left alone and that container
# is not sized: the pod is created at the template's size, not refused, and
# the dry run carries the webhook's warning.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/51_webhook_lib.bash"
apiserver_keeps_pod_resources() {
  # Does this apiserver keep spec.resources on a new pod? (a dry run, nothing stored)
  k -n default create --dry-run=server -o json -f - 2>/dev/null <<'YAML' | jq -e '.spec.resources.requests.cpu != null' >/dev/null
apiVersion: v1
kind: Pod
metadata: {generateName: attune-envelope-probe-}
spec:
  resources: {requests: {cpu: 500m}}
  containers: [{name: app, image: attune.local/pause:1, resources: {requests: {cpu: 100m}}}]
YAML
}
apiserver_keeps_pod_resources || skip "this apiserver drops pod-level spec.resources (PodLevelResources off before 1.34)"
webhook_test

deployment_with_policy enveloped '{resources: {requests: {cpu: 600m, memory: 320Mi}}, containers: [
  {name: app, image: attune.local/pause:1, resources: {requests: {cpu: 500m, memory: 256Mi}}},
  {name: log, image: attune.local/pause:1, resources: {requests: {cpu: 100m, memory: 64Mi}}}]}'
deployment_with_policy capped '{resources: {requests: {cpu: "1"}, limits: {cpu: 1500m}}, containers: [
  {name: app, image: attune.local/pause:1, resources: {requests: {cpu: "1"}}}]}' '{controlledValues: RequestsOnly}'
set_recommendation enveloped Deployment enveloped app 900m 512Mi
set_recommendation capped Deployment capped app "2" 128Mi

start_webhook_manager
wait_webhook_called
wait_until 30 replicaset_of enveloped && wait_until 30 replicaset_of capped || fail "no ReplicaSets"
template_probe() {  # a dry run of the next pod of $1, with the template's own spec
  local rs hash
  rs=$(replicaset_of "$1"); hash=$(template_hash_of "$1")
  k -n "$ns" get deployment "$1" -o json | jq --arg rs "$rs" --arg h "$hash" '{apiVersion: "v1", kind: "Pod",
      metadata: {generateName: ($rs + "-"), labels: (.spec.template.metadata.labels + {"pod-template-hash": $h}),
        ownerReferences: [{apiVersion: "apps/v1", kind: "ReplicaSet", name: $rs,
          uid: "00000000-0000-0000-0000-000000000001", controller: true}]},
      spec: .spec.template.spec}' | k -n "$ns" create --dry-run=server -o json -f - 2>"$ATTUNE_RUN/$ns-warn.txt"
}
enveloped_cpu() { template_probe enveloped | jq -r '.spec.containers[0].resources.requests.cpu'; }
wait_eq 30 900m enveloped_cpu \
  || fail "the next enveloped pod would not be sized: $(template_probe enveloped | head -c 800)"

k -n "$ns" scale deployment enveloped --replicas=1 >/dev/null
wait_eq 60 1 pod_count enveloped || fail "enveloped never got a pod"
p=$(k -n "$ns" get pods -l app=enveloped -o jsonpath='{.items[0].metadata.name}')
wait_until 60 pod_running "$ns" "$p" || fail "the enveloped pod never ran"
expect_eq "sized container" "$(pod_requests "$ns" "$p" app)" "900m 512Mi"
expect_eq "untouched container" "$(pod_requests "$ns" "$p" log)" "100m 64Mi"
expect_eq "raised envelope" "$(k -n "$ns" get pod "$p" -o jsonpath='{.spec.resources.requests.cpu} {.spec.resources.requests.memory}')" "1 576Mi"
log "the envelope was raised at CREATE to 1 CPU / 576Mi to cover 900m+100m and 512Mi+64Mi"

# RequestsOnly + Burstable: the envelope limit would have to rise from 1500m to 2.
out=$(template_probe capped)
expect_eq "capped dry run: app cpu" "$(jq -r '.spec.containers[0].resources.requests.cpu' <<<"$out")" "1"
grep -q "container app not sized" "$ATTUNE_RUN/$ns-warn.txt" \
  || fail "no warning for the unsized container: $(cat "$ATTUNE_RUN/$ns-warn.txt")"
rm -f "$ATTUNE_RUN/$ns-warn.txt"
k -n "$ns" scale deployment capped --replicas=1 >/dev/null
wait_eq 60 1 pod_count capped || fail "the capped pod was not created"
cp=$(k -n "$ns" get pods -l app=capped -o jsonpath='{.items[0].metadata.name}')
expect_eq "capped pod cpu" "$(k -n "$ns" get pod "$cp" -o jsonpath='{.spec.containers[0].resources.requests.cpu}')" "1"
expect_eq "capped envelope" "$(k -n "$ns" get pod "$cp" -o jsonpath='{.spec.resources.requests.cpu} {.spec.resources.limits.cpu}')" "1 1500m"
expect_eq "capped pod not annotated" "$(k -n "$ns" get pod "$cp" -o jsonpath='{.metadata.annotations.attune\.io/initial-sizing}')" ""
log "RequestsOnly + Burstable: left unsized, created, with a warning"
