#!/usr/bin/env bash
# `kubectl patch --subresource=resize` moves a pod through the resize states the
# minor reports: 1.32 through status.resize, 1.33+ through the PodResizePending /
# PodResizeInProgress conditions. Fits -> InProgress -> Applied; no room on the
# node -> Deferred, applied once room appears; larger than the node -> Infeasible.
. "$(dirname "$0")/../lib.sh"
require_local
test_namespace
node="e2e-resize-$RANDOM"
sim_node "$node" 2 4Gi
mech=$(expected_resize_mechanism)

pod() {  # pod NAME CPU-REQ CPU-LIM
  k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  nodeName: $node
  tolerations: [{key: attune.io/e2e-dedicated, operator: Exists}]
  containers:
  - name: app
    image: attune.local/pause:1
    resources:
      requests: {cpu: "$2", memory: 128Mi}
      limits: {cpu: "$3", memory: 256Mi}
YAML
  wait_until 30 pod_running "$ns" "$1" || fail "pod $1 never ran"
}
resize_cpu() {  # resize_cpu POD REQ LIM (stderr kept for the caller)
  k -n "$ns" patch pod "$1" --subresource resize --type strategic \
    -p "{\"spec\":{\"containers\":[{\"name\":\"app\",\"resources\":{\"requests\":{\"cpu\":\"$2\"},\"limits\":{\"cpu\":\"$3\"}}}]}}" >/dev/null
}
state_is() { [ "$(resize_view "$ns" "$1")" = "$2" ]; }

pod a 500m 1
# 1. Fits: observed InProgress on the way, then Applied.
k -n "$ns" get pod a -w -o json > "/tmp/e2e-watch-$ns.json" 2>/dev/null & watcher=$!
# The watch must be running before the resize, or a loaded machine lets the
# 500 ms InProgress window pass before it connects: its first line is the pod.
wait_until 20 test -s "/tmp/e2e-watch-$ns.json" || fail "kubectl get -w printed nothing"
resize_cpu a 1 1
wait_until 30 state_is a "none Applied" || fail "resize that fits was not applied: $(resize_view "$ns" a)"
sleep 0.5; kill $watcher 2>/dev/null || true
if [ "$mech" = field ]; then
  jq -s -e 'any(.[]; .status.resize == "InProgress")' "/tmp/e2e-watch-$ns.json" >/dev/null || fail "status.resize=InProgress never observed"
else
  jq -s -e 'any(.[]; any((.status.conditions // [])[]; .type == "PodResizeInProgress"))' "/tmp/e2e-watch-$ns.json" >/dev/null \
    || fail "PodResizeInProgress never observed"
  jq -s -e 'all(.[]; .status.resize == null)' "/tmp/e2e-watch-$ns.json" >/dev/null || fail "status.resize used on $K8S_MINOR"
fi
rm -f "/tmp/e2e-watch-$ns.json"
expect_eq "applied cpu request" "$(k -n "$ns" get pod a -o jsonpath='{.status.containerStatuses[0].resources.requests.cpu}')" 1

# 2. No room: 0.8 (b) + 1.5 (a) > 2 -> Deferred; deleting b makes room.
pod b 800m 800m
resize_cpu a 1500m 1500m
wait_until 30 state_is a "$mech Deferred" || fail "expected '$mech Deferred', got '$(resize_view "$ns" a)'"
if [ "$mech" = conditions ] && [ "${K8S_MINOR#1.}" -ge 34 ]; then
  # The kubelet stamps the generation of the attempt on the condition (1.34+).
  gen=$(k -n "$ns" get pod a -o jsonpath='{.metadata.generation}')
  og=$(k -n "$ns" get pod a -o jsonpath='{.status.conditions[?(@.type=="PodResizePending")].observedGeneration}')
  expect_eq "PodResizePending observedGeneration" "$og" "$gen"
fi
k -n "$ns" delete pod b --grace-period=0 --force >/dev/null 2>&1
wait_until 30 state_is a "none Applied" || fail "deferred resize not retried once room appeared: $(resize_view "$ns" a)"
expect_eq "applied cpu request" "$(k -n "$ns" get pod a -o jsonpath='{.status.containerStatuses[0].resources.requests.cpu}')" 1500m

# 3. Larger than the node. Newer apiservers refuse this at admission (the
# PodResize plugin compares against node allocatable: 403 Forbidden, nothing
# stored); older ones store it and the kubelet reports Infeasible (terminal).
if out=$(resize_cpu a 3 3 2>&1); then
  wait_until 30 state_is a "$mech Infeasible" || fail "expected '$mech Infeasible', got '$(resize_view "$ns" a)'"
  log "oversized resize stored; kubelet reported Infeasible"
else
  grep -qi "enough allocatable resources: cpu" <<<"$out" || fail "oversized resize refused for another reason: $out"
  expect_eq "spec after refused resize" "$(k -n "$ns" get pod a -o jsonpath='{.spec.containers[0].resources.requests.cpu}')" 1500m
  expect_eq "state after refused resize" "$(resize_view "$ns" a)" "none Applied"
  log "oversized resize refused at admission: $out"
fi
