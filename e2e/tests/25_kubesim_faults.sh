#!/usr/bin/env bash
# HARNESS CHECK (kubesim, not Attune): the faults the safety tests (docs/safety.md)
# inject, seen through the real apiserver with kubectl.
#  - a container whose simulated working set reaches its memory limit after
#    an in-place resize is OOMKilled: restartCount+1, lastState OOMKilled;
#  - sim.attune.io/restart-count raises restartCount;
#  - sim.attune.io/ready=false makes the pod NotReady, and removing it undoes that;
#  - sim.attune.io/pressure on a node survives kubesim's 10 s condition refresh.
. "$(dirname "$0")/../lib.sh"
require_local
test_namespace
node="e2e-faults-$RANDOM"
sim_node "$node" 2 4Gi
at_exit "k annotate node $node sim.attune.io/pressure- >/dev/null 2>&1"

k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: app
  annotations: {sim.attune.io/load: '{"app": {"memory": "100Mi"}}'}
spec:
  nodeName: $node
  tolerations: [{key: attune.io/e2e-dedicated, operator: Exists}]
  containers:
  - name: app
    image: attune.local/pause:1
    resources:
      requests: {cpu: 100m, memory: 128Mi}
      limits: {memory: 512Mi}
YAML
wait_until 30 pod_running "$ns" app || fail "pod never ran"
restarts() { k -n "$ns" get pod app -o jsonpath='{.status.containerStatuses[0].restartCount}'; }
last_reason() { k -n "$ns" get pod app -o jsonpath='{.status.containerStatuses[0].lastState.terminated.reason}'; }
ready() { k -n "$ns" get pod app -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}'; }
expect_eq "restarts at start" "$(restarts)" 0

# 1. OOM: the limit goes from 512Mi down to 256Mi in place (1.34+ allows it;
#    on 1.32-1.33 a RestartContainer policy would be needed, so raise the
#    usage instead there), then the usage grows to 300Mi.
minor=${K8S_MINOR#1.}
if [ "$minor" -ge 34 ]; then
  k -n "$ns" patch pod app --subresource resize --type strategic \
    -p '{"spec":{"containers":[{"name":"app","resources":{"limits":{"memory":"256Mi"}}}]}}' >/dev/null
  applied_limit() { k -n "$ns" get pod app -o jsonpath='{.status.containerStatuses[0].resources.limits.memory}'; }
  wait_eq 30 256Mi applied_limit || fail "the limit decrease was not applied: $(applied_limit)"
  expect_eq "no OOM under the limit" "$(restarts)" 0
  k -n "$ns" annotate pod app --overwrite 'sim.attune.io/load={"app": {"memory": "300Mi"}}' >/dev/null
else
  k -n "$ns" annotate pod app --overwrite 'sim.attune.io/load={"app": {"memory": "600Mi"}}' >/dev/null
fi
wait_eq 20 OOMKilled last_reason || fail "no OOM kill over the limit (lastState: $(last_reason))"
[ "$(restarts)" -ge 1 ] || fail "OOM kill without a restart"
log "OOMKilled at usage >= limit, restartCount $(restarts)"
k -n "$ns" annotate pod app --overwrite 'sim.attune.io/load={"app": {"memory": "100Mi"}}' >/dev/null

# 2. Injected restarts.
want=$(( $(restarts) + 2 ))
k -n "$ns" annotate pod app --overwrite "sim.attune.io/restart-count={\"app\": $want}" >/dev/null
wait_eq 20 "$want" restarts || fail "restartCount $(restarts), want $want"
expect_eq "restart reason" "$(last_reason)" Error

# 3. NotReady and back.
k -n "$ns" annotate pod app sim.attune.io/ready=false >/dev/null
wait_eq 20 False ready || fail "pod still Ready"
k -n "$ns" annotate pod app sim.attune.io/ready- >/dev/null
wait_eq 20 True ready || fail "pod did not become Ready again"

# 4. Node pressure that outlives the heartbeat.
pressure() { k get node "$node" -o jsonpath='{.status.conditions[?(@.type=="'"$1"'")].status}'; }
k annotate node "$node" sim.attune.io/pressure=MemoryPressure,PIDPressure >/dev/null
wait_eq 20 True pressure MemoryPressure || fail "MemoryPressure not reported"
expect_eq "PIDPressure" "$(pressure PIDPressure)" True
expect_eq "DiskPressure" "$(pressure DiskPressure)" False
sleep 12  # more than one 10 s refresh
expect_eq "MemoryPressure after a refresh" "$(pressure MemoryPressure)" True
expect_eq "node Ready under pressure" "$(k get node "$node" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" True
k annotate node "$node" sim.attune.io/pressure- >/dev/null
wait_eq 20 False pressure MemoryPressure || fail "MemoryPressure not cleared"
