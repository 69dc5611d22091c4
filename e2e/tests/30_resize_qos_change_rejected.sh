#!/usr/bin/env bash
# The real apiserver rejects a /resize that would change the pod's QoS class.
. "$(dirname "$0")/../lib.sh"
test_namespace
k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: guaranteed}
spec:
  containers:
  - name: app
    image: attune.local/pause:1
    resources:
      requests: {cpu: 500m, memory: 128Mi}
      limits: {cpu: 500m, memory: 128Mi}
---
apiVersion: v1
kind: Pod
metadata: {name: besteffort}
spec:
  containers:
  - {name: app, image: attune.local/pause:1}
YAML
wait_until 60 pod_running "$ns" guaranteed || fail "guaranteed pod never ran"
wait_until 60 pod_running "$ns" besteffort || fail "besteffort pod never ran"
expect_eq "qosClass" "$(k -n "$ns" get pod guaranteed -o jsonpath='{.status.qosClass}')" Guaranteed
qos_msg='QOS Class may not change|QoS is immutable|QoS class may not change'

# Guaranteed -> Burstable: lower only the cpu request.
out=$(k -n "$ns" patch pod guaranteed --subresource resize --type strategic \
  -p '{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"250m"}}}]}}' 2>&1) \
  && fail "Guaranteed->Burstable resize accepted: $out"
grep -qE "$qos_msg" <<<"$out" || fail "rejected for another reason: $out"

# BestEffort -> Burstable: add a memory request.
out=$(k -n "$ns" patch pod besteffort --subresource resize --type strategic \
  -p '{"spec":{"containers":[{"name":"app","resources":{"requests":{"memory":"64Mi"}}}]}}' 2>&1) \
  && fail "BestEffort->Burstable resize accepted: $out"
grep -qE "$qos_msg" <<<"$out" || fail "rejected for another reason: $out"

# The same Guaranteed pod moving requests and limits together is accepted.
k -n "$ns" patch pod guaranteed --subresource resize --type strategic \
  -p '{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"250m"},"limits":{"cpu":"250m"}}}]}}' >/dev/null \
  || fail "QoS-preserving resize rejected"
