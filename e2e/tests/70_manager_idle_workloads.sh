#!/usr/bin/env bash
# attune-manager end to end: an AttunePolicy whose targetRef selects
# Deployments by label lists, in status.idleWorkloads, the Deployment scaled to
# 0 (WorkloadReplicasZero) and the Deployment whose autoscaling/v2 HPA reports
# ScaledToZero=True (HPAScaledToZero), with the gauge attune_workload_idle and
# a Normal HPAScaledToZero Event; both leave the list when they scale up
# again. A second policy targets ReplicaSets: a bare one at 0 is listed, the
# Deployments' own ReplicaSets never are. Unselected workloads and one that
# opts out (attune.io/skip: "true") never appear. The harness runs no HPA
# controller, so the test writes the HPA status itself.
# Only the informers an enabled feature reads run: nothing lists or watches
# nodes or namespaces.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
require_manager
apply_policy_crd
test_namespace
start_manager --workers 2

# The pod templates carry tier=web too, so the Deployments' ReplicaSets match
# the ReplicaSet policy's selector: they must still not be listed on their own
# ("stopped"'s ReplicaSet is at 0 too).
k -n "$ns" apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: stopped, labels: {tier: web}}
spec:
  replicas: 0
  selector: {matchLabels: {app: stopped}}
  template:
    metadata: {labels: {app: stopped, tier: web}}
    spec: {containers: [{name: app, image: attune.local/pause:1, resources: {requests: {cpu: 10m, memory: 16Mi}}}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: queue-worker, labels: {tier: web}}
spec:
  replicas: 1
  selector: {matchLabels: {app: queue-worker}}
  template:
    metadata: {labels: {app: queue-worker, tier: web}}
    spec: {containers: [{name: app, image: attune.local/pause:1, resources: {requests: {cpu: 10m, memory: 16Mi}}}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: busy, labels: {tier: web}}
spec:
  replicas: 1
  selector: {matchLabels: {app: busy}}
  template:
    metadata: {labels: {app: busy, tier: web}}
    spec: {containers: [{name: app, image: attune.local/pause:1, resources: {requests: {cpu: 10m, memory: 16Mi}}}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: opted-out, labels: {tier: web}, annotations: {attune.io/skip: "true"}}
spec:
  replicas: 0
  selector: {matchLabels: {app: opted-out}}
  template:
    metadata: {labels: {app: opted-out}}
    spec: {containers: [{name: app, image: attune.local/pause:1}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: unselected, labels: {tier: batch}}
spec:
  replicas: 0
  selector: {matchLabels: {app: unselected}}
  template:
    metadata: {labels: {app: unselected}}
    spec: {containers: [{name: app, image: attune.local/pause:1}]}
---
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
---
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: web}
spec:
  targetRef: {kind: Deployment, selector: {matchLabels: {tier: web}}}
  cpu: {}
  memory: {}
---
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: web-replicasets}
spec:
  targetRef: {kind: ReplicaSet, selector: {matchLabels: {tier: web}}}
  cpu: {}
  memory: {}
YAML

# What an HPA controller with HPAScaleToZero would write.
hpa_scaled_to_zero() {
  k -n "$ns" patch hpa queue-worker --subresource=status --type=merge -p "{\"status\":{\"currentReplicas\":0,\"desiredReplicas\":0,\"conditions\":[
    {\"type\":\"AbleToScale\",\"status\":\"True\",\"reason\":\"ReadyForNewScale\",\"message\":\"ok\",\"lastTransitionTime\":\"$(date -u +%FT%TZ)\"},
    {\"type\":\"ScaledToZero\",\"status\":\"$1\",\"reason\":\"$2\",\"message\":\"set by the e2e test\",\"lastTransitionTime\":\"$(date -u +%FT%TZ)\"}]}}" >/dev/null
}
hpa_scaled_to_zero True ScaledToZero

# idle_list [POLICY]: "Kind/name/reason" of status.idleWorkloads, sorted.
idle_list() { k -n "$ns" get attunepolicy "${1:-web}" -o json | jq -c '[(.status.idleWorkloads // [])[] | "\(.kind)/\(.workload)/\(.reason)"] | sort'; }
want='["Deployment/queue-worker/HPAScaledToZero","Deployment/stopped/WorkloadReplicasZero"]'
idle_is() { [ "$(idle_list "${2:-web}")" = "$1" ]; }
wait_until 30 idle_is "$want" || fail "status.idleWorkloads: got $(idle_list), want $want"
log "status.idleWorkloads = $(idle_list)"
# The Deployments' ReplicaSets ("stopped"'s is at 0) are never targets: once
# the ReplicaSet policy's pass is written, its list is empty.
wait_eq 30 1 k -n "$ns" get attunepolicy web-replicasets -o jsonpath='{.status.observedGeneration}' \
  || fail "web-replicasets: no status written"
expect_eq "web-replicasets idleWorkloads" "$(idle_list web-replicasets)" '[]' 

gen=$(k -n "$ns" get attunepolicy web -o jsonpath='{.metadata.generation}')
expect_eq "status.observedGeneration" "$(k -n "$ns" get attunepolicy web -o jsonpath='{.status.observedGeneration}')" "$gen"

gauge() { metric_value "attune_workload_idle{namespace=\"$ns\",policy=\"web\",reason=\"$1\"}"; }
gauges_are() { [ "$(gauge hpa_scaled_to_zero)" = "$1" ] && [ "$(gauge manual_zero)" = "$2" ]; }
wait_until 10 gauges_are 1 1 || fail "attune_workload_idle: hpa_scaled_to_zero=$(gauge hpa_scaled_to_zero) manual_zero=$(gauge manual_zero), want 1 and 1"

has_event() {
  k -n "$ns" get events.events.k8s.io -o json | jq -e '[.items[] | select(.reason == "HPAScaledToZero" and .type == "Normal"
    and .regarding.kind == "Deployment" and .regarding.name == "queue-worker")] | length == 1' >/dev/null
}
wait_until 10 has_event || fail "no Normal HPAScaledToZero Event for Deployment queue-worker"

# A bare ReplicaSet at zero is a target of its own.
k -n "$ns" apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: bare, labels: {tier: web}}
spec:
  replicas: 0
  selector: {matchLabels: {app: bare}}
  template:
    metadata: {labels: {app: bare}}
    spec: {containers: [{name: app, image: attune.local/pause:1}]}
YAML
want='["ReplicaSet/bare/WorkloadReplicasZero"]'
wait_until 30 idle_is "$want" web-replicasets || fail "after a bare ReplicaSet at 0: got $(idle_list web-replicasets), want $want"
expect_eq "the Deployment policy after a bare ReplicaSet" "$(idle_list)" \
  '["Deployment/queue-worker/HPAScaledToZero","Deployment/stopped/WorkloadReplicasZero"]' 

# Scaling up takes them out again.
k -n "$ns" scale deployment stopped --replicas=1 >/dev/null
k -n "$ns" delete replicaset bare >/dev/null
hpa_scaled_to_zero False ScaledUp
wait_until 30 idle_is '[]' || fail "after scale-up: status.idleWorkloads is $(idle_list), want []"
wait_until 30 idle_is '[]' web-replicasets || fail "after deleting the bare ReplicaSet: $(idle_list web-replicasets), want []"
wait_until 10 gauges_are 0 0 || fail "attune_workload_idle after scale-up: $(gauge hpa_scaled_to_zero) and $(gauge manual_zero), want 0 and 0"
k -n "$ns" get attunepolicy web -o json | jq -e '.status | has("idleWorkloads")' >/dev/null \
  || fail "status.idleWorkloads should be an empty list, not absent"

# Only the caches a feature reads are listed and watched: the VPA informer
# starts only once the VPA API is served (it is not here); the nodes one runs
# because the resize executor reads node room.
k api-resources --api-group=autoscaling.k8s.io -o name 2>/dev/null | grep -q verticalpodautoscalers \
  && fail "harness: this cluster serves the VPA API; the check below needs one that does not"
[ -z "$(metric_value 'attune_kube_informer_objects{resource="verticalpodautoscalers.autoscaling.k8s.io"}')" ] \
  || fail "the VerticalPodAutoscaler informer runs although the API is not served"
[ -n "$(metric_value 'attune_kube_informer_objects{resource="nodes"}')" ] \
  || fail "the nodes informer (the executor's node room) does not run"
[ -n "$(metric_value 'attune_kube_informer_objects{resource="deployments.apps"}')" ] \
  || fail "the deployments informer does not report its size"

# The manager stops cleanly on SIGTERM.
stop_manager || fail "attune-manager did not exit within 10 s of SIGTERM"
grep -q "stopped exit_code=0" "$MGR_LOG" || fail "attune-manager did not log a clean stop"
