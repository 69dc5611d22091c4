#!/usr/bin/env bash
# Deployment -> ReplicaSet -> Pods happens for real (kube-controller-manager and
# the scheduler), and the simulated kubelet runs them with applied resources.
. "$(dirname "$0")/../lib.sh"
test_namespace
k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: attune.local/pause:1
        resources:
          requests: {cpu: 100m, memory: 64Mi}
          limits: {cpu: 200m, memory: 128Mi}
YAML
running() {
  [ "$(k -n "$ns" get pods -l app=web -o json | jq '[.items[] | select(.metadata.deletionTimestamp == null and .status.phase == "Running" and .status.containerStatuses[0].resources.requests.cpu == "100m")] | length')" = 3 ]
}
wait_until 90 running || { k -n "$ns" get pods -o wide >&2; fail "3 Running pods with applied resources never appeared"; }
# Bound by the real scheduler, spread over simulated nodes.
k -n "$ns" get pods -l app=web -o json | jq -e '[.items[].spec.nodeName ] | length == 3' >/dev/null \
  || fail "pods not bound to nodes"
deploy_ready() { k -n "$ns" get deployment web -o json | jq -e '.status.readyReplicas == 3 and .status.availableReplicas == 3'; }
wait_until 30 deploy_ready || fail "Deployment never reported 3 ready replicas"
