#!/usr/bin/env bash
# The admission webhook merges both defaults tiers into the policy, as the
# controller does: a startup boost that only an AttuneDefaults sets (the
# policy leaves spec.cpu.startupBoost unset) boosts a pod the ReplicaSet
# controller creates; an AttuneNamespaceDefaults in the pod's namespace
# outranks it, and its arrival is seen by the next pod (the informer's event,
# no restart).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/51_webhook_lib.bash"
webhook_test

pod='{containers: [{name: app, image: attune.local/pause:1, resources: {requests: {cpu: "1", memory: 512Mi}, limits: {memory: 1Gi}}}]}'
deployment_with_policy tiers "$pod"  # cpu: {} -- no boost of its own
set_recommendation tiers Deployment tiers app 200m 128Mi
[ -z "$(k -n "$ns" get attunepolicy tiers -o jsonpath='{.spec.cpu.startupBoost}')" ] || fail "the policy sets a startup boost itself"

# Cluster-scoped: named after the test namespace, deleted on exit. The boost
# outlasts the test, so the executor's restore never races the checks.
AD="attune-e2e-$ns"
k apply -f - >/dev/null <<YAML || fail "the AttuneDefaults was refused"
apiVersion: attune.io/v1alpha1
kind: AttuneDefaults
metadata: {name: $AD}
spec:
  cpu: {startupBoost: {multiplier: "2", duration: 30m}}
YAML
at_exit "k delete attunedefaults $AD --ignore-not-found >/dev/null 2>&1"

start_webhook_manager
wait_webhook_called
wait_until 30 replicaset_of tiers || fail "no ReplicaSet for tiers"

# The cluster tier: 2 x 200m.
wait_eq 30 400m next_pod_cpu tiers || fail "a dry-run pod of tiers is not boosted by the AttuneDefaults: $(probe_pod_json "$(replicaset_of tiers)" "$(template_hash_of tiers)" | head -c 600)"
p1=$(scaled_pod tiers 1)
expect_eq "$p1 requests (AttuneDefaults boost x2)" "$(pod_requests "$ns" "$p1" app)" "400m 128Mi"
boost_at "$p1" >/dev/null
expect_eq "$p1 initial-sizing-policy" \
  "$(k -n "$ns" get pod "$p1" -o jsonpath='{.metadata.annotations.attune\.io/initial-sizing-policy}')" "$ns/tiers"
log "$p1 was born at 2 x 200m: the AttuneDefaults' startup boost"

# The namespace tier outranks the cluster tier: 3 x 200m for the next pod.
k -n "$ns" apply -f - >/dev/null <<'YAML' || fail "the AttuneNamespaceDefaults was refused"
apiVersion: attune.io/v1alpha1
kind: AttuneNamespaceDefaults
metadata: {name: team}
spec:
  cpu: {startupBoost: {multiplier: "3", duration: 30m}}
YAML
wait_eq 30 600m next_pod_cpu tiers || fail "the AttuneNamespaceDefaults was not seen: $(next_pod_cpu tiers)"
p2=$(scaled_pod tiers 2 "$p1")
expect_eq "$p2 requests (AttuneNamespaceDefaults boost x3)" "$(pod_requests "$ns" "$p2" app)" "600m 128Mi"
log "$p2 was born at 3 x 200m: the AttuneNamespaceDefaults outranks the AttuneDefaults"
