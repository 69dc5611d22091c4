#!/usr/bin/env bash
# Deployment -> ReplicaSet -> Pods happens for real (kube-controller-manager and
# the scheduler), and the simulated kubelet runs them with applied resources.
. "$(dirname "$0")/../lib.sh"
ns=$(test_namespace)
k -n "$ns" create deployment web --image=attune.local/pause:1 --replicas=3 >/dev/null
k -n "$ns" set resources deployment web --requests=cpu=100m,memory=64Mi --limits=cpu=200m,memory=128Mi >/dev/null
running() {
  [ "$(k -n "$ns" get pods -l app=web -o json | jq '[.items[] | select(.metadata.deletionTimestamp == null and .status.phase == "Running" and .status.containerStatuses[0].resources.requests.cpu == "100m")] | length')" = 3 ]
}
wait_until 90 running || { k -n "$ns" get pods -o wide >&2; fail "3 Running pods with applied resources never appeared"; }
# Bound by the real scheduler, spread over simulated nodes.
k -n "$ns" get pods -l app=web -o json | jq -e '[.items[].spec.nodeName ] | length == 3' >/dev/null \
  || fail "pods not bound to nodes"
k -n "$ns" get rs -l app=web -o json | jq -e '.items[0].status.readyReplicas == 3' >/dev/null || fail "ReplicaSet not ready"
