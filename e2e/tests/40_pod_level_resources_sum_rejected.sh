#!/usr/bin/env bash
# Pod-level resources (spec.resources): with in-place pod-level resize declared by
# the nodes, the apiserver rejects a container resize that makes
# sum(container requests) > spec.resources.requests, and accepts the same resize
# when the envelope is raised in the same /resize; and it checks the pod's own
# node: a node that does not declare the feature gets no pod-level resize.
# Decided on probed facts.
. "$(dirname "$0")/../lib.sh"
test_namespace
manifest() {
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  resources:
    requests: {cpu: "1", memory: 256Mi}
    limits: {cpu: "2", memory: 512Mi}
  containers:
  - name: app
    image: attune.local/pause:1
    resources:
      requests: {cpu: 500m, memory: 128Mi}
      limits: {cpu: "1", memory: 256Mi}
YAML
}
# Probe 1: does this apiserver keep spec.resources at all (PodLevelResources)?
if ! manifest probe | k -n "$ns" create --dry-run=server -o json -f - | jq -e '.spec.resources.requests.cpu == "1"' >/dev/null; then
  skip "the apiserver drops pod-level spec.resources (PodLevelResources off)"
fi
# Probe 2: do the Ready nodes declare in-place pod-level resize?
declared=$(k get nodes -o json | jq '[.items[] | select(any(.status.conditions[]; .type=="Ready" and .status=="True")) | (.status.declaredFeatures // [])[]] | any(. == "InPlacePodLevelResourcesVerticalScaling")')
manifest envelope | k -n "$ns" apply -f - >/dev/null
wait_until 60 pod_running "$ns" envelope || fail "pod with an envelope never ran"
if [ "$declared" != true ]; then
  skip "nodes do not declare InPlacePodLevelResourcesVerticalScaling"
fi
out=$(k -n "$ns" patch pod envelope --subresource resize --type strategic \
  -p '{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"1500m"},"limits":{"cpu":"1500m"}}}]}}' 2>&1) \
  && fail "resize with sum(container requests) > spec.resources.requests accepted: $out"
grep -q "aggregate container requests" <<<"$out" || fail "rejected for another reason: $out"
# Raise-to-cover in one atomic /resize is accepted and applied.
k -n "$ns" patch pod envelope --subresource resize --type strategic \
  -p '{"spec":{"resources":{"requests":{"cpu":"1500m"},"limits":{"cpu":"2"}},"containers":[{"name":"app","resources":{"requests":{"cpu":"1500m"},"limits":{"cpu":"1500m"}}}]}}' >/dev/null \
  || fail "atomic container + envelope resize rejected"
applied() { k -n "$ns" get pod envelope -o json | jq -e '.status.resources.requests.cpu == "1500m" and .status.containerStatuses[0].resources.requests.cpu == "1500m"' >/dev/null; }
wait_until 30 applied || fail "envelope resize not applied: $(k -n "$ns" get pod envelope -o json | jq -c .status.resources)"

# The apiserver decides per node, not per cluster: the same atomic resize of a
# pod on a node that declares no features is refused, although the cluster's
# other nodes declare in-place pod-level resize.
bare="e2e-nodecl-$RANDOM"
sim_node "$bare" 4 8Gi '[]'
manifest bare | sed "s/^spec:/spec:\n  nodeName: $bare\n  tolerations: [{key: attune.io\/e2e-dedicated, operator: Exists}]/" | k -n "$ns" apply -f - >/dev/null
wait_until 60 pod_running "$ns" bare || fail "pod on the undeclared node never ran"
out=$(k -n "$ns" patch pod bare --subresource resize --type strategic \
  -p '{"spec":{"resources":{"requests":{"cpu":"1500m"},"limits":{"cpu":"2"}},"containers":[{"name":"app","resources":{"requests":{"cpu":"1500m"},"limits":{"cpu":"1500m"}}}]}}' 2>&1) \
  && fail "pod-level resize accepted on a node that does not declare the feature: $out"
grep -q "requires features InPlacePodLevelResourcesVerticalScaling" <<<"$out" || fail "refused for another reason: $out"
log "per-node check: $out"
